// SPDX-License-Identifier: Apache-2.0
// The Fast DDS side of caret-standin-clock: what rmw_fastrtps_cpp puts on
// the wire for a rosgraph_msgs/msg/Clock publisher on /clock: topic
// "rt/clock", type "rosgraph_msgs::msg::dds_::Clock_", keyless, CDR_LE
// encapsulation then sec (int32) and nanosec (uint32) (XCDR1, as the
// stand-in's rmw_fastrtps writes its own type: rmw/standin_cdr.h).
#include <cstdio>
#include <cstring>
#include <functional>

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>

#include "tools/standin/clock/clock_pub_fastdds.h"

namespace fdds = eprosima::fastdds::dds;
namespace rtps = eprosima::fastrtps::rtps;

namespace
{
struct Clock
{
  int32_t sec;
  uint32_t nanosec;
};
constexpr uint32_t kSize = 4 + 8;

class ClockType : public fdds::TopicDataType
{
public:
  ClockType()
  {
    setName("rosgraph_msgs::msg::dds_::Clock_");
    m_typeSize = kSize + 4;
    m_isGetKeyDefined = false;
  }
  bool serialize(void * data, rtps::SerializedPayload_t * payload) override
  {
    if (payload->max_size < kSize) {
      return false;
    }
    auto * c = static_cast<const Clock *>(data);
    uint8_t * p = payload->data;
    p[0] = 0; p[1] = 1; p[2] = 0; p[3] = 0;
    std::memcpy(p + 4, &c->sec, 4);
    std::memcpy(p + 8, &c->nanosec, 4);
    payload->length = kSize;
    payload->encapsulation = CDR_LE;
    return true;
  }
  bool deserialize(rtps::SerializedPayload_t *, void *) override {return false;}
  std::function<uint32_t()> getSerializedSizeProvider(void *) override
  {
    return []() {return kSize;};
  }
  void * createData() override {return new Clock();}
  void deleteData(void * d) override {delete static_cast<Clock *>(d);}
  bool getKey(void *, rtps::InstanceHandle_t *, bool) override {return false;}
};

fdds::DomainParticipant * g_pp;
fdds::DataWriter * g_w;
}  // namespace

extern "C" int clock_fastdds_open(int domain, int reliable)
{
  auto * f = fdds::DomainParticipantFactory::get_instance();
  g_pp = f->create_participant(domain, fdds::PARTICIPANT_QOS_DEFAULT);
  if (!g_pp) {
    std::fprintf(stderr, "caret-standin-clock: Fast DDS: no participant\n");
    return -1;
  }
  fdds::TypeSupport ts(new ClockType());
  ts.register_type(g_pp);
  fdds::Topic * t = g_pp->create_topic("rt/clock", ts.get_type_name(), fdds::TOPIC_QOS_DEFAULT);
  fdds::Publisher * pub = t ? g_pp->create_publisher(fdds::PUBLISHER_QOS_DEFAULT) : nullptr;
  fdds::DataWriterQos q = fdds::DATAWRITER_QOS_DEFAULT;
  q.reliability().kind = reliable ? fdds::RELIABLE_RELIABILITY_QOS :
    fdds::BEST_EFFORT_RELIABILITY_QOS;
  q.durability().kind = fdds::VOLATILE_DURABILITY_QOS;
  q.history().kind = fdds::KEEP_LAST_HISTORY_QOS;
  q.history().depth = 1;
  g_w = pub ? pub->create_datawriter(t, q) : nullptr;
  if (!g_w) {
    std::fprintf(stderr, "caret-standin-clock: Fast DDS: no rt/clock writer\n");
    return -1;
  }
  return 0;
}

extern "C" int clock_fastdds_write(int32_t sec, uint32_t nanosec)
{
  Clock c{sec, nanosec};
  return g_w->write(&c) ? 0 : -1;
}

extern "C" void clock_fastdds_close(void)
{
  if (g_pp) {
    g_pp->delete_contained_entities();
    fdds::DomainParticipantFactory::get_instance()->delete_participant(g_pp);
  }
  g_pp = nullptr;
  g_w = nullptr;
}
