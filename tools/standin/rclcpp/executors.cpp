// SPDX-License-Identifier: Apache-2.0
// The three executors (rclcpp/src/rclcpp/executors/*.cpp). The workload
// runs the executor loop itself (workload/executor_spin.c) over the groups
// these objects hold; spin() exists so the classes are concrete, as
// upstream, and only collects the entities.
#include <algorithm>
#include <thread>

#include "tools/standin/rclcpp/rclcpp.hpp"

namespace rclcpp
{
namespace executors
{

SingleThreadedExecutor::SingleThreadedExecutor(const rclcpp::ExecutorOptions & options)
: rclcpp::Executor(options) {}
SingleThreadedExecutor::~SingleThreadedExecutor() = default;
void SingleThreadedExecutor::spin() {standin_collect_entities();}

// multi_threaded_executor.cpp: 0 threads means hardware concurrency, at
// least two.
MultiThreadedExecutor::MultiThreadedExecutor(
  const rclcpp::ExecutorOptions & options,
  size_t number_of_threads,
  bool yield_before_execute,
  std::chrono::nanoseconds next_exec_timeout)
: rclcpp::Executor(options),
  yield_before_execute_(yield_before_execute),
  next_exec_timeout_(next_exec_timeout)
{
  number_of_threads_ = number_of_threads > 0 ?
    number_of_threads :
    std::max(std::thread::hardware_concurrency(), 2U);
}
MultiThreadedExecutor::~MultiThreadedExecutor() = default;
void MultiThreadedExecutor::spin() {standin_collect_entities();}
size_t MultiThreadedExecutor::get_number_of_threads() {return number_of_threads_;}

#ifdef STANDIN_HUMBLE
StaticSingleThreadedExecutor::StaticSingleThreadedExecutor(
  const rclcpp::ExecutorOptions & options)
: rclcpp::Executor(options)
{
  entities_collector_ = std::make_shared<StaticExecutorEntitiesCollector>();
}

void
StaticSingleThreadedExecutor::add_node(
  rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr, bool notify)
{
  (void)notify;  // upstream: interrupt_guard_condition_.trigger()
  entities_collector_->add_node(node_ptr);
}

std::vector<rclcpp::CallbackGroup::WeakPtr>
StaticSingleThreadedExecutor::get_all_callback_groups()
{
  return entities_collector_->get_all_callback_groups();
}
#else
StaticSingleThreadedExecutor::StaticSingleThreadedExecutor(
  const rclcpp::ExecutorOptions & options)
: rclcpp::Executor(options) {}
#endif
StaticSingleThreadedExecutor::~StaticSingleThreadedExecutor() = default;
void StaticSingleThreadedExecutor::spin() {standin_collect_entities();}

// The layouts the compiler computed from the member lists above, for
// libstdc++ on 64-bit. Humble: 0x240 (issue 7 quoted 0x238; the sum of the
// humble 99f1d8d1 members is vptr 8 + spinning 8 + GuardCondition 136 +
// shared_ptr 16 + rcl_wait_set_t 104 + mutex 40 + 2 shared_ptr 32 +
// 4 maps 192 + list 24 + weak_ptr 16 = 576). Not the agent's old 0x160.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
#ifdef STANDIN_HUMBLE
static_assert(sizeof(rclcpp::GuardCondition) == 136, "humble GuardCondition");
static_assert(sizeof(rclcpp::Executor) == 0x240, "humble Executor");
static_assert(
  offsetof(StaticSingleThreadedExecutor, entities_collector_) == 0x240,
  "humble StaticSingleThreadedExecutor::entities_collector_");
#else
struct ExecutorLayout : rclcpp::Executor
{
  static constexpr size_t collector_offset();
};
constexpr size_t ExecutorLayout::collector_offset() {return offsetof(ExecutorLayout, collector_);}
static_assert(ExecutorLayout::collector_offset() == 0x80, "jazzy Executor::collector_");
#endif
static_assert(offsetof(rclcpp::CallbackGroup, type_) == 0, "CallbackGroup::type_");
#pragma GCC diagnostic pop

}  // namespace executors
}  // namespace rclcpp
