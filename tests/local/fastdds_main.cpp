// SPDX-License-Identifier: Apache-2.0
/*
 * The FastDDS hooks against the real Fast DDS (Debian 12: 2.9): samples
 * written as rmw_fastrtps_cpp writes them (Humble: DataWriter::write(void*);
 * Jazzy: write_w_timestamp(data, HANDLE_NIL, Time_t::now())) are delivered,
 * every write succeeds, and each ros2_caret:dds_bind_addr_to_stamp stamp is
 * exactly the source timestamp the reader's SampleInfo reports (what
 * rmw_take reports). The agent's events go to the in-memory test provider.
 * Usage: fastdds_main DOMAIN. Exit 0 when every check passed.
 */
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/TopicDataType.hpp>
#include <fastdds/rtps/common/SerializedPayload.h>

using namespace eprosima::fastdds::dds;
using eprosima::fastrtps::rtps::SerializedPayload_t;
using eprosima::fastrtps::rtps::InstanceHandle_t;

struct Msg {
  uint32_t seq;
};

class MsgType : public TopicDataType
{
public:
  MsgType()
  {
    setName("caret_test::Msg");
    m_typeSize = 4 + 4;  // encapsulation header + payload
    m_isGetKeyDefined = false;
  }
  bool serialize(void * data, SerializedPayload_t * p) override
  {
    p->data[0] = 0; p->data[1] = 1; p->data[2] = 0; p->data[3] = 0;  // CDR_LE
    std::memcpy(p->data + 4, &static_cast<Msg *>(data)->seq, 4);
    p->length = 8;
    return true;
  }
  bool deserialize(SerializedPayload_t * p, void * data) override
  {
    if (p->length < 8) {return false;}
    std::memcpy(&static_cast<Msg *>(data)->seq, p->data + 4, 4);
    return true;
  }
  std::function<uint32_t()> getSerializedSizeProvider(void *) override
  {
    return []() {return 8u;};
  }
  void * createData() override {return new Msg();}
  void deleteData(void * d) override {delete static_cast<Msg *>(d);}
  bool getKey(void *, InstanceHandle_t *, bool) override {return false;}
};

struct tp_rec {
  uint32_t kind;
  uint64_t a[3];
  char s[32];
};

static int failures;
#define CHECK(cond, ...) do { \
    std::printf((cond) ? "ok   " : "FAIL "); failures += !(cond); \
    std::printf(__VA_ARGS__); std::printf("\n"); } while (0)

int main(int argc, char ** argv)
{
  if (argc != 2) {return 2;}
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const char * tp = std::getenv("CARET_AGENT_TP_LIB");
  auto rcl_init = reinterpret_cast<void (*)(const void *)>(dlsym(RTLD_DEFAULT, "ros_trace_rcl_init"));
  auto rcl_publish = reinterpret_cast<void (*)(const void *, const void *)>(
    dlsym(RTLD_DEFAULT, "ros_trace_rcl_publish"));
  bool agent = tp && rcl_init && rcl_publish;
  tp_rec * log = nullptr;
  unsigned * log_n = nullptr;
  if (agent) {
    static int ctx;
    rcl_init(&ctx);
    void * t = dlopen(tp, RTLD_LAZY | RTLD_NOLOAD);
    log = t ? static_cast<tp_rec *>(dlsym(t, "test_tp_log")) : nullptr;
    log_n = t ? static_cast<unsigned *>(dlsym(t, "test_tp_n")) : nullptr;
    CHECK(log && log_n, "test provider loaded by the agent");
  }

  auto * part = DomainParticipantFactory::get_instance()->create_participant(
    std::atoi(argv[1]), PARTICIPANT_QOS_DEFAULT);
  TypeSupport type(new MsgType());
  type.register_type(part);
  auto * topic = part->create_topic("caret_test", type.get_type_name(), TOPIC_QOS_DEFAULT);
  auto * pub = part->create_publisher(PUBLISHER_QOS_DEFAULT);
  auto * sub = part->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
  DataWriterQos wq = DATAWRITER_QOS_DEFAULT;
  wq.reliability().kind = RELIABLE_RELIABILITY_QOS;
  wq.history().kind = KEEP_ALL_HISTORY_QOS;
  DataReaderQos rq = DATAREADER_QOS_DEFAULT;
  rq.reliability().kind = RELIABLE_RELIABILITY_QOS;
  rq.history().kind = KEEP_ALL_HISTORY_QOS;
  auto * reader = sub->create_datareader(topic, rq);
  auto * writer = pub->create_datawriter(topic, wq);
  for (int i = 0; i < 500; i++) {
    PublicationMatchedStatus st;
    writer->get_publication_matched_status(st);
    if (st.current_count > 0) {break;}
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  const int n = 20;
  int ok = 0;
  static int publisher_handle;
  for (int i = 0; i < n; i++) {
    Msg m{static_cast<uint32_t>(i)};
    if (agent) {rcl_publish(&publisher_handle, &m);}  // rcl_publish precedes the write
    if (i % 2 == 0) {
      ok += writer->write(&m) ? 1 : 0;  // Humble's rmw_fastrtps
    } else {
      eprosima::fastrtps::Time_t now;
      eprosima::fastrtps::Time_t::now(now);  // Jazzy's rmw_fastrtps
      ok += writer->write_w_timestamp(&m, HANDLE_NIL, now) == ReturnCode_t::RETCODE_OK;
    }
  }
  CHECK(ok == n, "every write succeeded (%d/%d)", ok, n);

  std::set<int64_t> seen;
  for (int tries = 0; tries < 300 && static_cast<int>(seen.size()) < n; tries++) {
    Msg m;
    SampleInfo info;
    while (reader->take_next_sample(&m, &info) == ReturnCode_t::RETCODE_OK) {
      if (info.valid_data) {seen.insert(info.source_timestamp.to_ns());}
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(static_cast<int>(seen.size()) == n, "every sample delivered (%zu/%d)", seen.size(), n);
  if (agent) {
    std::set<int64_t> bound;
    for (unsigned i = 0; i < *log_n; i++) {
      if (log[i].kind == 1000) {bound.insert(static_cast<int64_t>(log[i].a[1]));}
    }
    CHECK(static_cast<int>(bound.size()) == n, "one bind per write (%zu)", bound.size());
    CHECK(bound == seen, "every bound stamp is the source timestamp the reader saw");
  }
  part->delete_contained_entities();
  DomainParticipantFactory::get_instance()->delete_participant(part);
  std::printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
