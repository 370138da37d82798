// SPDX-License-Identifier: Apache-2.0
//
// librmw_fastrtps_cpp.so's services and clients (the topic side is
// rmw_fastrtps.cpp).
#include "tools/standin/rmw/fastrtps_common.hpp"

using namespace standin_fastrtps;  // NOLINT: one library, split in two files

extern "C" {

// Services, as rmw_fastrtps_shared_cpp (humble 37f7ef88, jazzy 3b665241):
// topics "rq<name>Request" / "rr<name>Reply" (_mangle_topic_name with
// ros_service_requester_prefix / ros_service_response_prefix); a request
// is request_writer_->write(&data, wparams) with
// wparams.related_sample_identity().writer_guid() = the client's response
// reader GUID, the sequence id is wparams.sample_identity()'s
// (rmw_request.cpp); take_request reports sample_identity's writer GUID
// and sequence number; a response is response_writer_->write(&data,
// wparams) with related_sample_identity = the request's identity
// (rmw_response.cpp), and a client keeps the responses whose
// related_sample_identity names its request writer. Not reproduced: the
// wait for the client's response reader in __rmw_send_response.
static ServiceOrClient * create_cs(
  const rmw_node_t * node, const char * name, const rmw_qos_profile_t * qos, bool is_service)
{
  Context * c = ctx_of(node);
  fdds::Topic * rq = dds_topic(c, std::string("rq") + name + "Request", request_type_name);
  fdds::Topic * rr = dds_topic(c, std::string("rr") + name + "Reply", response_type_name);
  if (!rq || !rr) {
    return nullptr;
  }
  fdds::DataWriterQos wq = qos_from_profile(fdds::DATAWRITER_QOS_DEFAULT, qos->depth);
  fdds::DataReaderQos rqos = qos_from_profile(fdds::DATAREADER_QOS_DEFAULT, qos->depth);
  auto * cs = new ServiceOrClient();
  cs->writer = c->publisher->create_datawriter(is_service ? rr : rq, wq);
  cs->reader = c->subscriber->create_datareader(is_service ? rq : rr, rqos, &cs->listener);
  if (!cs->writer || !cs->reader) {
    std::fprintf(stderr, "rmw_fastrtps: no endpoints for service %s\n", name);
    delete cs;
    return nullptr;
  }
  cs->writer_guid = cs->writer->guid();
  cs->reader_guid = cs->reader->guid();
  return cs;
}

rmw_service_t * rmw_create_service(
  const rmw_node_t * node, const void *, const char * service_name,
  const rmw_qos_profile_t * qos_profile)
{
  ServiceOrClient * cs = create_cs(node, service_name, qos_profile, true);
  if (!cs) {
    return nullptr;
  }
  auto * s = static_cast<rmw_service_t *>(std::calloc(1, sizeof(rmw_service_t)));
  s->implementation_identifier = identifier;
  s->data = cs;
  s->service_name = service_name;
  return s;
}

rmw_client_t * rmw_create_client(
  const rmw_node_t * node, const void *, const char * service_name,
  const rmw_qos_profile_t * qos_profile)
{
  ServiceOrClient * cs = create_cs(node, service_name, qos_profile, false);
  if (!cs) {
    return nullptr;
  }
  auto * c = static_cast<rmw_client_t *>(std::calloc(1, sizeof(rmw_client_t)));
  c->implementation_identifier = identifier;
  c->data = cs;
  c->service_name = service_name;
  return c;
}

rmw_ret_t rmw_send_request(
  const rmw_client_t * client, const void * ros_request, int64_t * sequence_id)
{
  auto * cs = static_cast<ServiceOrClient *>(client->data);
  rtps::WriteParams wparams;
  SerializedData data;
#ifdef STANDIN_HUMBLE
  data.is_cdr_buffer = false;
#else
  data.type = FASTRTPS_SERIALIZED_DATA_TYPE_ROS_MESSAGE;
#endif
  data.data = const_cast<void *>(ros_request);
  data.impl = nullptr;
  wparams.related_sample_identity().writer_guid() = cs->reader_guid;
  if (!cs->writer->write(&data, wparams)) {
    return RMW_RET_ERROR;
  }
  *sequence_id = seq_of(wparams.sample_identity().sequence_number());
  return RMW_RET_OK;
}

rmw_ret_t rmw_send_response(
  const rmw_service_t * service, rmw_request_id_t * request_header, void * ros_response)
{
  auto * cs = static_cast<ServiceOrClient *>(service->data);
  rtps::WriteParams wparams;
  bytes_to_guid(request_header->writer_guid, wparams.related_sample_identity().writer_guid());
  wparams.related_sample_identity().sequence_number().high =
    static_cast<int32_t>((request_header->sequence_number & 0xFFFFFFFF00000000) >> 32);
  wparams.related_sample_identity().sequence_number().low =
    static_cast<uint32_t>(request_header->sequence_number & 0xFFFFFFFF);
  SerializedData data;
#ifdef STANDIN_HUMBLE
  data.is_cdr_buffer = false;
#else
  data.type = FASTRTPS_SERIALIZED_DATA_TYPE_ROS_MESSAGE;
#endif
  data.data = ros_response;
  data.impl = nullptr;
  return cs->writer->write(&data, wparams) ? RMW_RET_OK : RMW_RET_ERROR;
}

rmw_ret_t rmw_take_request(
  const rmw_service_t * service, rmw_service_info_t * request_header, void * ros_request,
  bool * taken)
{
  auto * cs = static_cast<ServiceOrClient *>(service->data);
  fdds::SampleInfo sinfo;
  *taken = false;
  while (cs->reader->take_next_sample(ros_request, &sinfo) == ReturnCode_t::RETCODE_OK) {
    if (sinfo.valid_data) {
      guid_to_bytes(sinfo.sample_identity.writer_guid(), request_header->request_id.writer_guid);
      request_header->request_id.sequence_number = seq_of(sinfo.sample_identity.sequence_number());
      request_header->source_timestamp = sinfo.source_timestamp.to_ns();
      request_header->received_timestamp = sinfo.reception_timestamp.to_ns();
      *taken = true;
      break;
    }
  }
  return RMW_RET_OK;
}

rmw_ret_t rmw_take_response(
  const rmw_client_t * client, rmw_service_info_t * request_header, void * ros_response,
  bool * taken)
{
  auto * cs = static_cast<ServiceOrClient *>(client->data);
  fdds::SampleInfo sinfo;
  *taken = false;
  while (cs->reader->take_next_sample(ros_response, &sinfo) == ReturnCode_t::RETCODE_OK) {
    if (sinfo.valid_data && sinfo.related_sample_identity.writer_guid() == cs->writer_guid) {
      guid_to_bytes(sinfo.sample_identity.writer_guid(), request_header->request_id.writer_guid);
      request_header->request_id.sequence_number =
        seq_of(sinfo.related_sample_identity.sequence_number());
      request_header->source_timestamp = sinfo.source_timestamp.to_ns();
      request_header->received_timestamp = sinfo.reception_timestamp.to_ns();
      *taken = true;
      break;
    }
  }
  return RMW_RET_OK;
}

rmw_ret_t rmw_service_set_on_new_request_callback(
  rmw_service_t * service, rmw_event_callback_t callback, const void * user_data)
{
  auto * cs = static_cast<ServiceOrClient *>(service->data);
  cs->listener.user.store(user_data);
  cs->listener.cb.store(callback);
  return RMW_RET_OK;
}

rmw_ret_t rmw_client_set_on_new_response_callback(
  rmw_client_t * client, rmw_event_callback_t callback, const void * user_data)
{
  auto * cs = static_cast<ServiceOrClient *>(client->data);
  cs->listener.user.store(user_data);
  cs->listener.cb.store(callback);
  return RMW_RET_OK;
}

}  // extern "C"
