// SPDX-License-Identifier: Apache-2.0
// A small real ROS 2 system for the real-ROS tests, built against the fixture (Humble or Jazzy
// rclcpp). One program, so every shape the agent hooks is reached through rclcpp's own code:
// timers, publishers and subscriptions (typed, generic/serialized), services and clients,
// single-, multi-threaded, static and (Jazzy) events executors, mutually exclusive and reentrant
// callback groups, intra-process communication and a lifecycle node.
//
// It prints what the tests compare the trace with, in the stand-in's words
// (tools/standin/workload): "executor 0x.. groups 0x..:TYPE ...", "ready pid=N", and at exit
// "published=N taken=N failed=N" and "requests=.. served=.. responses=.. answered=.. failed=..".
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <time.h>
#include <unistd.h>

#include "example_interfaces/srv/add_two_ints.hpp"
#include "rclcpp/rclcpp.hpp"
#include "rclcpp/serialization.hpp"
#include "rclcpp/version.h"
#include "rclcpp_lifecycle/lifecycle_node.hpp"
#include "std_msgs/msg/string.hpp"
#if __has_include("rclcpp/experimental/executors/events_executor/events_executor.hpp")
#include "rclcpp/experimental/executors/events_executor/events_executor.hpp"
#define HAVE_EVENTS_EXECUTOR 1
#endif

using namespace std::chrono_literals;
using AddTwoInts = example_interfaces::srv::AddTwoInts;

namespace
{
struct Options
{
  std::string role = "both";  // both | talker | listener
  std::string executor = "single";  // single | multi | static | events
  std::string group = "me";  // the listener's own group: me | re
  std::string prefix = "chatter";
  bool intra = false;
  bool serialized = false;
  bool lifecycle = false;
  double rate = 20.0;
  double work_ms = 0.0;  // the talker's timer callback runs this long (caretctl top's test)
  double duration = 0.0;  // 0: until SIGINT/SIGTERM
  uint64_t ping = 0;  // >0: the benchmark (Pinger) instead of the system
};

std::atomic<uint64_t> published{0}, taken{0}, failed{0};
std::atomic<uint64_t> requests{0}, served{0}, responses{0}, answered{0}, svc_failed{0};

void usage()
{
  std::fprintf(
    stderr,
    "usage: caret_real_app [--role both|talker|listener] [--executor single|multi|static|events]\n"
    "       [--group me|re] [--topic-prefix P] [--intra] [--serialized] [--lifecycle]\n"
    "       [--rate HZ] [--work-ms MS] [--duration S]\n"
    "       caret_real_app --ping N   (publish -> callback N times through the RMW; prints the\n"
    "                                  cost per message, RSS and threads)\n");
}

bool parse(int argc, char ** argv, Options & o)
{
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val = [&](std::string & out) {
        if (i + 1 >= argc) {return false;}
        out = argv[++i];
        return true;
      };
    std::string v;
    if (a == "--role" && val(o.role)) {
    } else if (a == "--executor" && val(o.executor)) {
    } else if (a == "--group" && val(o.group)) {
    } else if (a == "--topic-prefix" && val(o.prefix)) {
    } else if (a == "--intra") {
      o.intra = true;
    } else if (a == "--serialized") {
      o.serialized = true;
    } else if (a == "--lifecycle") {
      o.lifecycle = true;
    } else if (a == "--rate" && val(v)) {
      o.rate = std::stod(v);
    } else if (a == "--work-ms" && val(v)) {
      o.work_ms = std::stod(v);
    } else if (a == "--duration" && val(v)) {
      o.duration = std::stod(v);
    } else if (a == "--ping" && val(v)) {
      o.ping = std::stoull(v);
    } else if (a == "--ros-args") {
      break;
    } else {
      return false;
    }
  }
  return o.role == "both" || o.role == "talker" || o.role == "listener";
}

const char * group_type(const rclcpp::CallbackGroup::SharedPtr & g)
{
  return g->type() == rclcpp::CallbackGroupType::Reentrant ? "reentrant" : "mutually_exclusive";
}

// Publishes on a timer; serves add_two_ints.
class Talker
{
public:
  Talker(const Options & o, const rclcpp::NodeOptions & no)
  : work(std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double, std::milli>(o.work_ms)))
  {
    node = std::make_shared<rclcpp::Node>("talker", no);
    pub = node->create_publisher<std_msgs::msg::String>(o.prefix, 10);
    if (o.serialized) {
      gpub = node->create_generic_publisher(o.prefix + "_raw", "std_msgs/msg/String",
          rclcpp::QoS(10));
    }
    auto period = std::chrono::duration<double>(1.0 / o.rate);
    timer = node->create_wall_timer(
      std::chrono::duration_cast<std::chrono::nanoseconds>(period), [this]() {tick();});
    srv = node->create_service<AddTwoInts>(
      o.prefix + "_add",
      [](const std::shared_ptr<AddTwoInts::Request> rq, std::shared_ptr<AddTwoInts::Response> rs) {
        rs->sum = rq->a + rq->b;
        served++;
        responses++;
      });
  }

  void tick()
  {
    if (work.count() > 0) {
      std::this_thread::sleep_for(work);
    }
    auto msg = std::make_unique<std_msgs::msg::String>();
    msg->data = "hello " + std::to_string(count++);
    try {
      if (gpub) {
        rclcpp::SerializedMessage sm;
        ser.serialize_message(msg.get(), &sm);
        gpub->publish(sm);
        published++;
      }
      pub->publish(std::move(msg));  // unique_ptr: the intra-process path when enabled
      published++;
    } catch (const std::exception & e) {
      // A publish racing SIGTERM's shutdown in another executor thread fails on the
      // invalid context: that is not a failed write.
      if (rclcpp::ok()) {
        failed++;
        std::fprintf(stderr, "publish failed: %s\n", e.what());
      }
    }
  }

  rclcpp::Node::SharedPtr node;
  rclcpp::Publisher<std_msgs::msg::String>::SharedPtr pub;
  rclcpp::GenericPublisher::SharedPtr gpub;
  rclcpp::TimerBase::SharedPtr timer;
  rclcpp::Service<AddTwoInts>::SharedPtr srv;
  rclcpp::Serialization<std_msgs::msg::String> ser;
  std::chrono::nanoseconds work;
  uint64_t count = 0;
};

// Subscribes in its own callback group; calls add_two_ints from a timer in another.
class Listener
{
public:
  Listener(const Options & o, const rclcpp::NodeOptions & no)
  {
    node = std::make_shared<rclcpp::Node>("listener", no);
    sub_group = node->create_callback_group(
      o.group == "re" ? rclcpp::CallbackGroupType::Reentrant :
      rclcpp::CallbackGroupType::MutuallyExclusive);
    cli_group = node->create_callback_group(rclcpp::CallbackGroupType::Reentrant);
    rclcpp::SubscriptionOptions so;
    so.callback_group = sub_group;
    sub = node->create_subscription<std_msgs::msg::String>(
      o.prefix, 10, [](std_msgs::msg::String::UniquePtr) {taken++;}, so);
    if (o.serialized) {
      raw = node->create_subscription<std_msgs::msg::String>(
        o.prefix + "_raw", 10, [](std_msgs::msg::String::UniquePtr) {taken++;}, so);
    }
#if RCLCPP_VERSION_MAJOR >= 21  // Iron added the QoS overload and deprecated this one
    cli = node->create_client<AddTwoInts>(o.prefix + "_add", rclcpp::ServicesQoS(), cli_group);
#else
    cli = node->create_client<AddTwoInts>(o.prefix + "_add", rmw_qos_profile_services_default,
        cli_group);
#endif
    call_timer = node->create_wall_timer(100ms, [this]() {call();}, cli_group);
  }

  void call()
  {
    if (!cli->service_is_ready()) {
      return;
    }
    auto rq = std::make_shared<AddTwoInts::Request>();
    rq->a = 2;
    rq->b = 3;
    requests++;
    cli->async_send_request(
      rq, [](rclcpp::Client<AddTwoInts>::SharedFuture f) {
        if (f.get()->sum == 5) {answered++;} else {svc_failed++;}
      });
  }

  rclcpp::Node::SharedPtr node;
  rclcpp::CallbackGroup::SharedPtr sub_group, cli_group;
  rclcpp::Subscription<std_msgs::msg::String>::SharedPtr sub, raw;
  rclcpp::Client<AddTwoInts>::SharedPtr cli;
  rclcpp::TimerBase::SharedPtr call_timer;
};

// A lifecycle node configured and activated at start (rcl_lifecycle_state_machine_init and
// rcl_lifecycle_transition), publishing through a LifecyclePublisher.
class Managed
{
public:
  Managed(const Options & o, const rclcpp::NodeOptions & no)
  {
    node = std::make_shared<rclcpp_lifecycle::LifecycleNode>("managed", no);
    pub = node->create_publisher<std_msgs::msg::String>(o.prefix + "_managed", 10);
    timer = node->create_wall_timer(200ms, [this]() {
          std_msgs::msg::String m;
          m.data = "managed";
          if (pub->is_activated()) {
            try {
              pub->publish(m);
              published++;
            } catch (const std::exception &) {
              failed++;
            }
          }
        });
    node->configure();
    node->activate();
    pub->on_activate();
  }

  rclcpp_lifecycle::LifecycleNode::SharedPtr node;
  rclcpp_lifecycle::LifecyclePublisher<std_msgs::msg::String>::SharedPtr pub;
  rclcpp::TimerBase::SharedPtr timer;
};

long status_kb(const char * key)
{
  FILE * f = std::fopen("/proc/self/status", "re");
  char line[256];
  long v = -1;
  size_t n = std::strlen(key);
  while (f && std::fgets(line, sizeof(line), f)) {
    if (!std::strncmp(line, key, n)) {
      v = std::atol(line + n);
    }
  }
  if (f) {
    std::fclose(f);
  }
  return v;
}

uint64_t cpu_ns()
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The bench of issue 19: one message at a time, each published from the callback of the last
// (no intra-process), so the time per message is the whole publish -> take -> callback path.
class Pinger
{
public:
  Pinger(uint64_t n, const std::string & topic)
  : total(n)
  {
    node = std::make_shared<rclcpp::Node>("pinger");
    pub = node->create_publisher<std_msgs::msg::String>(topic, rclcpp::QoS(10).reliable());
    sub = node->create_subscription<std_msgs::msg::String>(
      topic, rclcpp::QoS(10).reliable(), [this](std_msgs::msg::String::ConstSharedPtr) {
        if (++seen == warmup) {
          t0 = std::chrono::steady_clock::now();
          c0 = cpu_ns();
        }
        if (seen == warmup + total) {
          t1 = std::chrono::steady_clock::now();
          c1 = cpu_ns();
          rclcpp::shutdown();
          return;
        }
        send();
      });
    kick = node->create_wall_timer(100ms, [this]() {
          if (pub->get_subscription_count() > 0 && seen == 0 && !started) {
            started = true;
            send();
          }
        });
  }

  void send()
  {
    std_msgs::msg::String m;
    m.data = "ping";
    pub->publish(m);
  }

  const uint64_t warmup = 200;
  uint64_t total, seen = 0;
  bool started = false;
  std::chrono::steady_clock::time_point t0, t1;
  // The process's CPU time over the same messages, every thread: less at the mercy of what
  // else the machine runs than the wall clock, and it counts the tracer's own threads too.
  uint64_t c0 = 0, c1 = 0;
  rclcpp::Node::SharedPtr node;
  rclcpp::Publisher<std_msgs::msg::String>::SharedPtr pub;
  rclcpp::Subscription<std_msgs::msg::String>::SharedPtr sub;
  rclcpp::TimerBase::SharedPtr kick;
};

std::shared_ptr<rclcpp::Executor> make_executor(const std::string & kind)
{
  if (kind == "single") {
    return std::make_shared<rclcpp::executors::SingleThreadedExecutor>();
  }
  if (kind == "multi") {
    return std::make_shared<rclcpp::executors::MultiThreadedExecutor>(
      rclcpp::ExecutorOptions(), 2);
  }
  if (kind == "static") {
    return std::make_shared<rclcpp::executors::StaticSingleThreadedExecutor>();
  }
#ifdef HAVE_EVENTS_EXECUTOR
  if (kind == "events") {
    return std::make_shared<rclcpp::experimental::executors::EventsExecutor>();
  }
#endif
  return nullptr;
}
}  // namespace

int main(int argc, char ** argv)
{
  Options o;
  if (!parse(argc, argv, o)) {
    usage();
    return 2;
  }
  rclcpp::init(argc, argv);
  if (o.ping > 0) {
    Pinger p(o.ping, o.prefix + "_ping");
    rclcpp::executors::SingleThreadedExecutor ex;
    ex.add_node(p.node);
    std::printf("ready pid=%d\n", static_cast<int>(getpid()));
    std::fflush(stdout);
    ex.spin();
    if (p.seen < p.warmup + p.total) {
      std::fprintf(stderr, "caret_real_app: ping interrupted after %" PRIu64 "\n", p.seen);
      return 1;
    }
    double ns = std::chrono::duration<double, std::nano>(p.t1 - p.t0).count() /
      static_cast<double>(p.total);
    // RssShmem apart: a session's ring buffers are shared memory every traced process maps
    // (the same with any tracer); RssAnon is what the process itself allocated.
    std::printf("ping n=%" PRIu64 " ns_per_msg=%.0f rss_kb=%ld threads=%ld cpu_ns_per_msg=%.0f "
      "rss_anon_kb=%ld rss_file_kb=%ld rss_shmem_kb=%ld\n", p.total, ns,
      status_kb("VmRSS:"), status_kb("Threads:"),
      static_cast<double>(p.c1 - p.c0) / static_cast<double>(p.total), status_kb("RssAnon:"),
      status_kb("RssFile:"), status_kb("RssShmem:"));
    return 0;
  }
  auto exec = make_executor(o.executor);
  if (!exec) {
    std::fprintf(stderr, "caret_real_app: executor '%s' is not in this rclcpp\n",
      o.executor.c_str());
    return 2;
  }
  rclcpp::NodeOptions no;
  no.use_intra_process_comms(o.intra);
  std::unique_ptr<Talker> talker;
  std::unique_ptr<Listener> listener;
  std::unique_ptr<Managed> managed;
  std::vector<rclcpp::node_interfaces::NodeBaseInterface::SharedPtr> nodes;
  if (o.role != "listener") {
    talker = std::make_unique<Talker>(o, no);
    nodes.push_back(talker->node->get_node_base_interface());
  }
  if (o.role != "talker") {
    listener = std::make_unique<Listener>(o, no);
    nodes.push_back(listener->node->get_node_base_interface());
  }
  if (o.lifecycle) {
    managed = std::make_unique<Managed>(o, no);
    nodes.push_back(managed->node->get_node_base_interface());
  }
  for (auto & n : nodes) {
    exec->add_node(n);
  }
  // The executor's address as its constructor saw it (the Executor base is the first base).
  std::printf("executor %#" PRIxPTR " groups", reinterpret_cast<uintptr_t>(
      static_cast<rclcpp::Executor *>(exec.get())));
  for (auto & n : nodes) {
    n->for_each_callback_group([](rclcpp::CallbackGroup::SharedPtr g) {
        std::printf(" %#" PRIxPTR ":%s", reinterpret_cast<uintptr_t>(g.get()), group_type(g));
      });
  }
  std::printf("\nready pid=%d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  rclcpp::TimerBase::SharedPtr stop;
  if (o.duration > 0 && !nodes.empty()) {
    auto n = talker ? talker->node : listener->node;
    stop = n->create_wall_timer(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::duration<double>(o.duration)), []() {rclcpp::shutdown();});
  }
  exec->spin();
  std::printf("published=%" PRIu64 " taken=%" PRIu64 " failed=%" PRIu64 "\n",
    published.load(), taken.load(), failed.load());
  std::printf("requests=%" PRIu64 " served=%" PRIu64 " responses=%" PRIu64 " answered=%" PRIu64
    " failed=%" PRIu64 "\n", requests.load(), served.load(), responses.load(), answered.load(),
    svc_failed.load());
  std::fflush(stdout);
  rclcpp::shutdown();
  return 0;
}
