// SPDX-License-Identifier: Apache-2.0
//
// What the stand-in's Fast DDS rmw shares between its topic side
// (rmw_fastrtps.cpp) and its service side (rmw_fastrtps_service.cpp): the
// SerializedData wrapper write() receives, the type support, the
// context, listener and endpoint holders, and the GUID and QoS helpers.
// The upstream facts each copies are named where it is defined.
#ifndef STANDIN_RMW_FASTRTPS_COMMON_HPP
#define STANDIN_RMW_FASTRTPS_COMMON_HPP

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

namespace standin_fastrtps
{

inline constexpr char identifier[] = "rmw_fastrtps_cpp";
inline constexpr char type_name[] = "standin_msgs::msg::dds_::Sample_";
inline constexpr char request_type_name[] = "standin_msgs::srv::dds_::Echo_Request_";
inline constexpr char response_type_name[] = "standin_msgs::srv::dds_::Echo_Response_";

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
inline bool is_cdr_buffer(const SerializedData * sd) {return sd->is_cdr_buffer;}
#else
inline bool is_cdr_buffer(const SerializedData * sd)
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

inline void guid_to_bytes(const rtps::GUID_t & g, int8_t out[16])
{
  std::memcpy(out, g.guidPrefix.value, 12);
  std::memcpy(out + 12, g.entityId.value, 4);
}

inline void bytes_to_guid(const int8_t in[16], rtps::GUID_t & g)
{
  std::memcpy(g.guidPrefix.value, in, 12);
  std::memcpy(g.entityId.value, in + 12, 4);
}

inline int64_t seq_of(const rtps::SequenceNumber_t & n)
{
  return (static_cast<int64_t>(n.high) << 32) | n.low;
}

inline Context * ctx_of(const rmw_node_t * node)
{
  return static_cast<Context *>(node->context->impl);
}

inline fdds::Topic * dds_topic(Context * c, const std::string & name, const char * type)
{
  fdds::TopicDescription * d = c->participant->lookup_topicdescription(name);
  if (d) {
    return static_cast<fdds::Topic *>(d);
  }
  return c->participant->create_topic(name, type, fdds::TOPIC_QOS_DEFAULT);
}

inline fdds::Topic * topic_for(Context * c, const char * ros_topic)
{
  return dds_topic(c, std::string("rt") + ros_topic, type_name);
}

// rmw_fastrtps_shared_cpp src/qos.cpp (humble, jazzy): one template,
// fill_entity_qos_from_profile, sets writers' and readers' QoS alike from
// the rmw profile; the stand-in's profiles are reliable, keep-last, volatile.
template<typename EntityQos>
inline EntityQos qos_from_profile(EntityQos q, size_t depth)
{
  q.reliability().kind = fdds::RELIABLE_RELIABILITY_QOS;
  q.history().kind = fdds::KEEP_LAST_HISTORY_QOS;
  q.history().depth = static_cast<int32_t>(depth);
  q.durability().kind = fdds::VOLATILE_DURABILITY_QOS;
  return q;
}

inline void fill_gid(const rtps::GUID_t & guid, uint8_t gid[STANDIN_RMW_GID_SIZE])
{
  std::memset(gid, 0, STANDIN_RMW_GID_SIZE);
  std::memcpy(gid, guid.guidPrefix.value, 12);
  std::memcpy(gid + 12, guid.entityId.value, 4);
}

}  // namespace standin_fastrtps

#endif
