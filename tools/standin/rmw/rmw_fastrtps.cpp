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
#include "tools/standin/rmw/fastrtps_common.hpp"

using namespace standin_fastrtps;  // NOLINT: one library, split in two files

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
