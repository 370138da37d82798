// SPDX-License-Identifier: Apache-2.0
//
// librmw_fastrtps_cpp.so: the rmw API over Fast DDS 2.9 (Debian 12
// libfastrtps-dev), with the publish and take paths of ros2/rmw_fastrtps
// (rmw_fastrtps_shared_cpp/src/rmw_publish.cpp, rmw_take.cpp):
//   humble (37f7ef88): SerializedData data{is_cdr_buffer=false,
//                        data=ros_message, impl};
//                      TRACEPOINT(rmw_publish, ros_message);
//                      data_writer_->write(&data)
//   jazzy  (3b665241): Time_t stamp; Time_t::now(stamp);
//                      TRACETOOLS_TRACEPOINT(rmw_publish, publisher,
//                        ros_message, stamp.to_ns());
//                      data_writer_->write_w_timestamp(&data, HANDLE_NIL,
//                        stamp)
//   take: message_info->source_timestamp = sinfo.source_timestamp.to_ns();
//         rmw_take(subscription, ros_message, source_timestamp, taken)
//   serialized (__rmw_publish_serialized_message): a fastcdr::Cdr over the
//     caller's buffer, jumped to its end; SerializedData{is_cdr_buffer=true
//     (humble) / type=FASTRTPS_SERIALIZED_DATA_TYPE_CDR_BUFFER (jazzy),
//     data=&ser}; humble write(&data), no tracepoint; jazzy Time_t::now,
//     rmw_publish(publisher, serialized_message, stamp.to_ns()),
//     write_w_timestamp(&data, HANDLE_NIL, stamp). TypeSupport::serialize
//     copies a CDR buffer as is (TypeSupport_impl.cpp).
// So DataWriter::write receives the address of a wrapper on the stack, not
// the ROS message, as upstream. The wire format is CDR (little endian
// encapsulation) of the four members in order (standin_cdr.h).
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/DataReaderListener.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>
#include <fastdds/rtps/common/Time_t.h>
#include <fastcdr/Cdr.h>
#include <fastcdr/FastBuffer.h>

#include "tools/standin/rmw/rmw.h"
#include "tools/standin/rmw/standin_cdr.h"
#include "tools/standin/tracetools/tracetools.h"

namespace fdds = eprosima::fastdds::dds;
namespace rtps = eprosima::fastrtps::rtps;

namespace
{

const char identifier[] = "rmw_fastrtps_cpp";
const char type_name[] = "standin_msgs::msg::dds_::Sample_";
const char request_type_name[] = "standin_msgs::srv::dds_::Echo_Request_";
const char response_type_name[] = "standin_msgs::srv::dds_::Echo_Response_";

// rmw_fastrtps_shared_cpp/include/.../TypeSupport.hpp: what write() gets.
#ifdef STANDIN_HUMBLE
struct SerializedData
{
  bool is_cdr_buffer;  // humble: true when publishing a serialized message
  void * data;
  const void * impl;
};
#else
enum SerializedDataType
{
  FASTRTPS_SERIALIZED_DATA_TYPE_CDR_BUFFER,
  FASTRTPS_SERIALIZED_DATA_TYPE_DYNAMIC_MESSAGE,
  FASTRTPS_SERIALIZED_DATA_TYPE_ROS_MESSAGE
};
struct SerializedData
{
  SerializedDataType type;  // jazzy
  void * data;
  const void * impl;
};
#endif

constexpr uint32_t kCdrSize = STANDIN_CDR_SIZE;

#ifdef STANDIN_HUMBLE
bool is_cdr_buffer(const SerializedData * sd) {return sd->is_cdr_buffer;}
#else
bool is_cdr_buffer(const SerializedData * sd)
{
  return sd->type == FASTRTPS_SERIALIZED_DATA_TYPE_CDR_BUFFER;
}
#endif

class SampleType : public fdds::TopicDataType
{
public:
  explicit SampleType(const char * name = type_name)
  {
    setName(name);
    m_typeSize = kCdrSize + 4 /* padding slack */;
    m_isGetKeyDefined = false;
  }

  bool serialize(void * data, rtps::SerializedPayload_t * payload) override
  {
    // What write() was given: the SerializedData wrapper, as upstream's
    // TypeSupport::serialize expects (a ROS message, not a CDR buffer).
    auto * sd = static_cast<SerializedData *>(data);
    if (is_cdr_buffer(sd)) {
      auto * ser = static_cast<eprosima::fastcdr::Cdr *>(sd->data);
      size_t n = ser->getSerializedDataLength();
      if (payload->max_size < n) {
        return false;
      }
      std::memcpy(payload->data, ser->getBufferPointer(), n);
      payload->length = static_cast<uint32_t>(n);
      payload->encapsulation = CDR_LE;
      return true;
    }
    if (payload->max_size < kCdrSize) {
      return false;
    }
    standin_cdr_write(static_cast<const standin_sample *>(sd->data), payload->data);
    payload->length = kCdrSize;
    payload->encapsulation = CDR_LE;
    return true;
  }

  bool deserialize(rtps::SerializedPayload_t * payload, void * data) override
  {
    return standin_cdr_read(payload->data, payload->length, static_cast<standin_sample *>(data));
  }

  std::function<uint32_t()> getSerializedSizeProvider(void * data) override
  {
    auto * sd = static_cast<SerializedData *>(data);
    if (is_cdr_buffer(sd)) {
      auto * ser = static_cast<eprosima::fastcdr::Cdr *>(sd->data);
      return [ser]() {return static_cast<uint32_t>(ser->getSerializedDataLength());};
    }
    return []() {return kCdrSize;};
  }

  void * createData() override {return new standin_sample();}
  void deleteData(void * data) override {delete static_cast<standin_sample *>(data);}

  bool getKey(void *, rtps::InstanceHandle_t *, bool) override {return false;}
};

struct Context
{
  fdds::DomainParticipant * participant;
  fdds::Publisher * publisher;
  fdds::Subscriber * subscriber;
};

struct Listener : public fdds::DataReaderListener
{
  std::atomic<rmw_event_callback_t> cb{nullptr};
  std::atomic<const void *> user{nullptr};

  void on_data_available(fdds::DataReader *) override
  {
    rmw_event_callback_t f = cb.load();
    if (f) {
      f(user.load(), 1);
    }
  }
};

struct Sub
{
  fdds::DataReader * reader;
  Listener listener;
};

// CustomServiceInfo / CustomClientInfo reduced: the writer, the reader
// and the GUIDs used to route responses.
struct ServiceOrClient
{
  fdds::DataWriter * writer;
  fdds::DataReader * reader;
  rtps::GUID_t writer_guid, reader_guid;
  Listener listener;
};

void guid_to_bytes(const rtps::GUID_t & g, int8_t out[16])
{
  std::memcpy(out, g.guidPrefix.value, 12);
  std::memcpy(out + 12, g.entityId.value, 4);
}

void bytes_to_guid(const int8_t in[16], rtps::GUID_t & g)
{
  std::memcpy(g.guidPrefix.value, in, 12);
  std::memcpy(g.entityId.value, in + 12, 4);
}

int64_t seq_of(const rtps::SequenceNumber_t & n)
{
  return (static_cast<int64_t>(n.high) << 32) | n.low;
}

Context * ctx_of(const rmw_node_t * node)
{
  return static_cast<Context *>(node->context->impl);
}

fdds::Topic * dds_topic(Context * c, const std::string & name, const char * type)
{
  fdds::TopicDescription * d = c->participant->lookup_topicdescription(name);
  if (d) {
    return static_cast<fdds::Topic *>(d);
  }
  return c->participant->create_topic(name, type, fdds::TOPIC_QOS_DEFAULT);
}

fdds::Topic * topic_for(Context * c, const char * ros_topic)
{
  return dds_topic(c, std::string("rt") + ros_topic, type_name);
}

// rmw_fastrtps_shared_cpp src/qos.cpp (humble, jazzy): one template,
// fill_entity_qos_from_profile, sets writers' and readers' QoS alike from
// the rmw profile; the stand-in's profiles are reliable, keep-last, volatile.
template<typename EntityQos>
EntityQos qos_from_profile(EntityQos q, size_t depth)
{
  q.reliability().kind = fdds::RELIABLE_RELIABILITY_QOS;
  q.history().kind = fdds::KEEP_LAST_HISTORY_QOS;
  q.history().depth = static_cast<int32_t>(depth);
  q.durability().kind = fdds::VOLATILE_DURABILITY_QOS;
  return q;
}

void fill_gid(const rtps::GUID_t & guid, uint8_t gid[STANDIN_RMW_GID_SIZE])
{
  std::memset(gid, 0, STANDIN_RMW_GID_SIZE);
  std::memcpy(gid, guid.guidPrefix.value, 12);
  std::memcpy(gid + 12, guid.entityId.value, 4);
}

}  // namespace

extern "C" {

const char * rmw_get_implementation_identifier(void)
{
  return identifier;
}

rmw_ret_t rmw_init(const rmw_init_options_t * options, rmw_context_t * context)
{
  auto * c = new Context();
  c->participant = fdds::DomainParticipantFactory::get_instance()->create_participant(
    static_cast<fdds::DomainId_t>(options->domain_id), fdds::PARTICIPANT_QOS_DEFAULT);
  if (!c->participant) {
    std::fprintf(stderr, "rmw_fastrtps: create_participant failed\n");
    delete c;
    return RMW_RET_ERROR;
  }
  fdds::TypeSupport ts(new SampleType());
  ts.register_type(c->participant);
  // Service types: request and response are both a Sample.
  fdds::TypeSupport rq(new SampleType(request_type_name));
  rq.register_type(c->participant);
  fdds::TypeSupport rr(new SampleType(response_type_name));
  rr.register_type(c->participant);
  c->publisher = c->participant->create_publisher(fdds::PUBLISHER_QOS_DEFAULT);
  c->subscriber = c->participant->create_subscriber(fdds::SUBSCRIBER_QOS_DEFAULT);
  context->implementation_identifier = identifier;
  context->impl = c;
  return RMW_RET_OK;
}

rmw_ret_t rmw_shutdown(rmw_context_t * context)
{
  auto * c = static_cast<Context *>(context->impl);
  if (c) {
    c->participant->delete_contained_entities();
    fdds::DomainParticipantFactory::get_instance()->delete_participant(c->participant);
    delete c;
  }
  context->impl = nullptr;
  return RMW_RET_OK;
}

rmw_node_t * rmw_create_node(rmw_context_t * context, const char * name, const char * namespace_)
{
  auto * n = static_cast<rmw_node_t *>(std::calloc(1, sizeof(rmw_node_t)));
  if (n) {
    n->implementation_identifier = identifier;
    n->name = name;
    n->namespace_ = namespace_;
    n->context = context;
  }
  return n;
}

rmw_publisher_t * rmw_create_publisher(
  const rmw_node_t * node, const void *, const char * topic_name,
  const rmw_qos_profile_t * qos_profile, const void *)
{
  Context * c = ctx_of(node);
  fdds::Topic * t = topic_for(c, topic_name);
  if (!t) {
    return nullptr;
  }
  fdds::DataWriterQos q = qos_from_profile(fdds::DATAWRITER_QOS_DEFAULT, qos_profile->depth);
  fdds::DataWriter * w = c->publisher->create_datawriter(t, q);
  if (!w) {
    std::fprintf(stderr, "rmw_fastrtps: no writer for %s\n", topic_name);
    return nullptr;
  }
  auto * p = static_cast<rmw_publisher_t *>(std::calloc(1, sizeof(rmw_publisher_t)));
  p->implementation_identifier = identifier;
  p->data = w;
  p->topic_name = topic_name;
  fill_gid(w->guid(), p->gid);
  ros_trace_rmw_publisher_init(p, p->gid);
  return p;
}

rmw_subscription_t * rmw_create_subscription(
  const rmw_node_t * node, const void *, const char * topic_name,
  const rmw_qos_profile_t * qos_policies, const void *)
{
  Context * c = ctx_of(node);
  fdds::Topic * t = topic_for(c, topic_name);
  if (!t) {
    return nullptr;
  }
  fdds::DataReaderQos q = qos_from_profile(fdds::DATAREADER_QOS_DEFAULT, qos_policies->depth);
  auto * s = new Sub();
  s->reader = c->subscriber->create_datareader(t, q, &s->listener);
  if (!s->reader) {
    std::fprintf(stderr, "rmw_fastrtps: no reader for %s\n", topic_name);
    delete s;
    return nullptr;
  }
  auto * r = static_cast<rmw_subscription_t *>(std::calloc(1, sizeof(rmw_subscription_t)));
  r->implementation_identifier = identifier;
  r->data = s;
  r->topic_name = topic_name;
  fill_gid(s->reader->guid(), r->gid);
  ros_trace_rmw_subscription_init(r, r->gid);
  return r;
}

rmw_ret_t rmw_subscription_set_on_new_message_callback(
  rmw_subscription_t * subscription, rmw_event_callback_t callback, const void * user_data)
{
  auto * s = static_cast<Sub *>(subscription->data);
  s->listener.user.store(user_data);
  s->listener.cb.store(callback);
  return RMW_RET_OK;
}

rmw_ret_t rmw_publish(const rmw_publisher_t * publisher, const void * ros_message, void *)
{
  auto * w = static_cast<fdds::DataWriter *>(publisher->data);
  SerializedData data;
#ifdef STANDIN_HUMBLE
  data.is_cdr_buffer = false;
  data.data = const_cast<void *>(ros_message);
  data.impl = nullptr;
  ros_trace_rmw_publish(ros_message);
  bool ok = w->write(&data);
#else
  data.type = FASTRTPS_SERIALIZED_DATA_TYPE_ROS_MESSAGE;
  data.data = const_cast<void *>(ros_message);
  data.impl = nullptr;
  eprosima::fastrtps::Time_t stamp;
  eprosima::fastrtps::Time_t::now(stamp);
  ros_trace_rmw_publish(publisher, ros_message, stamp.to_ns());
  bool ok = w->write_w_timestamp(&data, fdds::HANDLE_NIL, stamp) == ReturnCode_t::RETCODE_OK;
#endif
  return ok ? RMW_RET_OK : RMW_RET_ERROR;
}

rmw_ret_t rmw_publish_serialized_message(
  const rmw_publisher_t * publisher, const rmw_serialized_message_t * serialized_message, void *)
{
  auto * w = static_cast<fdds::DataWriter *>(publisher->data);
  eprosima::fastcdr::FastBuffer buffer(
    reinterpret_cast<char *>(serialized_message->buffer), serialized_message->buffer_length);
  eprosima::fastcdr::Cdr ser(
    buffer, eprosima::fastcdr::Cdr::DEFAULT_ENDIAN, eprosima::fastcdr::Cdr::DDS_CDR);
  if (!ser.jump(serialized_message->buffer_length)) {
    return RMW_RET_ERROR;
  }
  SerializedData data;
  data.data = &ser;
  data.impl = nullptr;
#ifdef STANDIN_HUMBLE
  data.is_cdr_buffer = true;
  bool ok = w->write(&data);
#else
  data.type = FASTRTPS_SERIALIZED_DATA_TYPE_CDR_BUFFER;
  eprosima::fastrtps::Time_t stamp;
  eprosima::fastrtps::Time_t::now(stamp);
  ros_trace_rmw_publish(publisher, serialized_message, stamp.to_ns());
  bool ok = w->write_w_timestamp(&data, fdds::HANDLE_NIL, stamp) == ReturnCode_t::RETCODE_OK;
#endif
  return ok ? RMW_RET_OK : RMW_RET_ERROR;
}

// rmw_fastrtps: TypeSupport serializes the message into the buffer.
rmw_ret_t rmw_serialize(
  const void * ros_message, const void *, rmw_serialized_message_t * serialized_message)
{
  if (serialized_message->buffer_capacity < kCdrSize) {
    return RMW_RET_ERROR;
  }
  standin_cdr_write(static_cast<const standin_sample *>(ros_message), serialized_message->buffer);
  serialized_message->buffer_length = kCdrSize;
  return RMW_RET_OK;
}

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

rmw_ret_t rmw_take_with_info(
  const rmw_subscription_t * subscription, void * ros_message, bool * taken,
  rmw_message_info_t * message_info, void *)
{
  auto * s = static_cast<Sub *>(subscription->data);
  fdds::SampleInfo info;
  *taken = false;
  while (s->reader->take_next_sample(ros_message, &info) == ReturnCode_t::RETCODE_OK) {
    if (info.valid_data) {
      *taken = true;
      message_info->source_timestamp = info.source_timestamp.to_ns();
      message_info->received_timestamp = info.reception_timestamp.to_ns();
      break;
    }
  }
  ros_trace_rmw_take(
    subscription, ros_message, *taken ? message_info->source_timestamp : 0, *taken);
  return RMW_RET_OK;
}

}  // extern "C"
