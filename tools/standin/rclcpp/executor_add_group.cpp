// SPDX-License-Identifier: Apache-2.0
// The functions a tracing agent interposes to link callback groups to
// executors, each in its own translation unit so that no caller in this
// library can have it inlined: every call goes through the PLT (or the
// vtable), as in the real librclcpp.so.
//   humble: Executor::add_callback_group_to_map (executor.cpp),
//           StaticExecutorEntitiesCollector::add_callback_group
//           (static_executor_entities_collector.cpp, the 3-argument one);
//   jazzy:  ExecutorEntitiesCollector::add_callback_group_to_collection
//           (executors/executor_entities_collector.cpp).
#include "tools/standin/rclcpp/rclcpp.hpp"

namespace rclcpp
{

#ifdef STANDIN_HUMBLE
void
Executor::add_callback_group_to_map(
  rclcpp::CallbackGroup::SharedPtr group_ptr,
  rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr,
  WeakCallbackGroupsToNodesMap & weak_groups_to_nodes,
  bool notify)
{
  (void)notify;
  std::atomic_bool & has_executor = group_ptr->get_associated_with_executor_atomic();
  if (has_executor.exchange(true)) {
    return;  // upstream throws
  }
  rclcpp::CallbackGroup::WeakPtr weak_group_ptr = group_ptr;
  weak_groups_to_nodes.insert(std::make_pair(weak_group_ptr, node_ptr));
}

namespace executors
{
bool
StaticExecutorEntitiesCollector::add_callback_group(
  rclcpp::CallbackGroup::SharedPtr group_ptr,
  rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr,
  WeakCallbackGroupsToNodesMap & weak_groups_to_nodes)
{
  std::atomic_bool & has_executor = group_ptr->get_associated_with_executor_atomic();
  if (has_executor.exchange(true)) {
    return false;  // upstream throws
  }
  rclcpp::CallbackGroup::WeakPtr weak_group_ptr = group_ptr;
  bool inserted = weak_groups_to_nodes.insert(std::make_pair(weak_group_ptr, node_ptr)).second;
  if (inserted) {
    std::lock_guard<std::mutex> guard{new_nodes_mutex_};
    new_nodes_.push_back(node_ptr);
  }
  return inserted;
}
}  // namespace executors

#else

namespace executors
{
void
ExecutorEntitiesCollector::add_callback_group_to_collection(
  rclcpp::CallbackGroup::SharedPtr group_ptr,
  CallbackGroupCollection & collection)
{
  auto iter = collection.insert(group_ptr);
  if (iter.second == false) {
    return;  // upstream throws
  }
  weak_groups_to_guard_conditions_.insert({group_ptr, group_ptr->notify_guard_condition_});
}
}  // namespace executors
#endif

}  // namespace rclcpp
