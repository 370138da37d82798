// SPDX-License-Identifier: Apache-2.0
// One process of a generated ROS 2 system of a given size (tests/ros2/test_scale.py,
// bench/ros2_scale.py): PROCS processes of NODES nodes each, NODES pipelines that each cross
// every process. Node j of process i is /p<i>_n<j>; it subscribes /s<j>_<i-1> (process 0:
// /s<j>_in, which nobody publishes), keeps the latest message and publishes it on /s<j>_<i>
// from its own timer at RATE Hz (process 0's timers make a new one): one publisher, one
// subscription and one timer per node, the "use_latest_message" shape most of Autoware has.
// All the process's nodes spin in one single-threaded executor.
//
// Prints "ready pid=N" once every node is in the executor, and at exit
// "published=N taken=N".
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "rclcpp/rclcpp.hpp"
#include "std_msgs/msg/string.hpp"

namespace
{
std::atomic<uint64_t> published{0}, taken{0};

struct Stage
{
  Stage(int proc, int slot, double rate)
  {
    std::string in = proc == 0 ? "in" : std::to_string(proc - 1);
    node = std::make_shared<rclcpp::Node>(
      "p" + std::to_string(proc) + "_n" + std::to_string(slot));
    pub = node->create_publisher<std_msgs::msg::String>(
      "/s" + std::to_string(slot) + "_" + std::to_string(proc), 10);
    sub = node->create_subscription<std_msgs::msg::String>(
      "/s" + std::to_string(slot) + "_" + in, 10,
      [this](std_msgs::msg::String::UniquePtr m) {
        latest = std::move(m);
        taken++;
      });
    source = proc == 0;
    timer = node->create_wall_timer(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(1.0 /
      rate)), [this]() {tick();});
  }

  void tick()
  {
    if (source) {
      auto m = std::make_unique<std_msgs::msg::String>();
      m->data = std::to_string(count++);
      pub->publish(std::move(m));
    } else if (latest) {
      pub->publish(std::move(latest));
    } else {
      return;
    }
    published++;
  }

  bool source = false;
  uint64_t count = 0;
  std_msgs::msg::String::UniquePtr latest;
  rclcpp::Node::SharedPtr node;
  rclcpp::Publisher<std_msgs::msg::String>::SharedPtr pub;
  rclcpp::Subscription<std_msgs::msg::String>::SharedPtr sub;
  rclcpp::TimerBase::SharedPtr timer;
};
}  // namespace

int main(int argc, char ** argv)
{
  int proc = -1, nodes = 0;
  double rate = 10.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--proc") {
      proc = std::stoi(argv[i + 1]);
    } else if (a == "--nodes") {
      nodes = std::stoi(argv[i + 1]);
    } else if (a == "--rate") {
      rate = std::stod(argv[i + 1]);
    } else if (a == "--ros-args") {
      break;
    } else {
      proc = -1;
      break;
    }
  }
  if (proc < 0 || nodes <= 0 || rate <= 0) {
    std::fprintf(stderr, "usage: caret_scale_app --proc I --nodes K [--rate HZ]\n");
    return 2;
  }
  rclcpp::init(argc, argv);
  {
    rclcpp::executors::SingleThreadedExecutor exec;
    std::vector<std::unique_ptr<Stage>> stages;
    for (int j = 0; j < nodes; j++) {
      stages.push_back(std::make_unique<Stage>(proc, j, rate));
      exec.add_node(stages.back()->node);
    }
    std::printf("ready pid=%d\n", static_cast<int>(getpid()));
    std::fflush(stdout);
    exec.spin();
  }
  std::printf("published=%" PRIu64 " taken=%" PRIu64 "\n", published.load(), taken.load());
  std::fflush(stdout);
  rclcpp::shutdown();
  return 0;
}
