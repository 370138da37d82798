// SPDX-License-Identifier: Apache-2.0
// caret_start N FREQ [TIMEOUT_S]: what `ros2 caret record` does once its LTTng session runs,
// against N processes under caret_trace (libcaret.so): waits until the N trace nodes
// (/caret_trace_*) match /caret/start_record and /caret/status, publishes caret_msgs/Start
// with recording_frequency FREQ, and waits until each has said RECORD on /caret/status.
// Prints "matched N after S s", then "record N after S s" (S from the Start), or
// "timeout: K of N in RECORD" or, ended by a signal, "stopped: K of N in RECORD after S s"
// (exit 1).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "caret_msgs/msg/start.hpp"
#include "caret_msgs/msg/status.hpp"
#include "rclcpp/rclcpp.hpp"

int main(int argc, char ** argv)
{
  if (argc < 3) {
    std::fprintf(stderr, "usage: caret_start N FREQ [TIMEOUT_S]\n");
    return 2;
  }
  size_t n = std::strtoul(argv[1], nullptr, 10);
  uint32_t freq = std::strtoul(argv[2], nullptr, 10);
  double timeout = argc > 3 ? std::strtod(argv[3], nullptr) : 600.0;
  rclcpp::init(1, argv);
  auto node = std::make_shared<rclcpp::Node>("caret_scale_start");
  std::set<std::string> recording;
  bool started = false;
  auto qos = rclcpp::QoS(1).reliable();
  // Status replies come in bursts from every process: a depth of 1 would drop some.
  auto sub = node->create_subscription<caret_msgs::msg::Status>(
    "/caret/status", rclcpp::QoS(1000).reliable(), [&](caret_msgs::msg::Status::UniquePtr m) {
      if (started && m->status == caret_msgs::msg::Status::RECORD) {
        recording.insert(m->caret_node_name);
      }
    });
  auto pub = node->create_publisher<caret_msgs::msg::Start>("/caret/start_record", qos);
  rclcpp::executors::SingleThreadedExecutor ex;
  ex.add_node(node);
  auto t0 = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
  while (rclcpp::ok() &&
    (pub->get_subscription_count() < n || sub->get_publisher_count() < n))
  {
    if (since(t0) > timeout) {
      std::printf("timeout: matched %zu/%zu of %zu\n", pub->get_subscription_count(),
        sub->get_publisher_count(), n);
      return 1;
    }
    ex.spin_some(std::chrono::milliseconds(100));
  }
  std::printf("matched %zu after %.3f s\n", n, since(t0));
  std::fflush(stdout);
  caret_msgs::msg::Start s;
  s.recording_frequency = freq;
  started = true;
  auto t1 = std::chrono::steady_clock::now();
  pub->publish(s);
  while (rclcpp::ok() && recording.size() < n) {
    if (since(t1) > timeout) {
      std::printf("timeout: %zu of %zu in RECORD\n", recording.size(), n);
      return 1;
    }
    ex.spin_some(std::chrono::milliseconds(50));
  }
  if (recording.size() < n) {  // ended by a signal: say how far it got, not N
    std::printf("stopped: %zu of %zu in RECORD after %.3f s\n", recording.size(), n, since(t1));
    return 1;
  }
  std::printf("record %zu after %.3f s\n", n, since(t1));
  rclcpp::shutdown();
  return 0;
}
