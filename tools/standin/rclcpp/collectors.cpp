// SPDX-License-Identifier: Apache-2.0
// Humble: StaticExecutorEntitiesCollector
//   (executors/static_executor_entities_collector.cpp);
// Jazzy: ExecutorEntitiesCollector (executors/executor_entities_collector.cpp),
//   with ExecutorNotifyWaitable reduced to its destructor.
#include "tools/standin/rclcpp/rclcpp.hpp"

namespace rclcpp
{
namespace executors
{

#ifdef STANDIN_HUMBLE
StaticExecutorEntitiesCollector::~StaticExecutorEntitiesCollector() = default;

bool
StaticExecutorEntitiesCollector::add_node(
  rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr)
{
  bool is_new_node = false;
  std::atomic_bool & has_executor = node_ptr->get_associated_with_executor_atomic();
  if (has_executor.exchange(true)) {
    return false;  // upstream throws
  }
  node_ptr->for_each_callback_group(
    [this, node_ptr, &is_new_node](rclcpp::CallbackGroup::SharedPtr group_ptr)
    {
      if (!group_ptr->get_associated_with_executor_atomic().load() &&
      group_ptr->automatically_add_to_executor_with_node())
      {
        is_new_node = (add_callback_group(
          group_ptr, node_ptr, weak_groups_to_nodes_associated_with_executor_) ||
        is_new_node);
      }
    });
  weak_nodes_.push_back(node_ptr);
  return is_new_node;
}

std::vector<rclcpp::CallbackGroup::WeakPtr>
StaticExecutorEntitiesCollector::get_all_callback_groups()
{
  std::vector<rclcpp::CallbackGroup::WeakPtr> groups;
  for (const auto & kv : weak_groups_associated_with_executor_to_nodes_) {
    groups.push_back(kv.first);
  }
  for (const auto & kv : weak_groups_to_nodes_associated_with_executor_) {
    groups.push_back(kv.first);
  }
  return groups;
}

#else

ExecutorNotifyWaitable::~ExecutorNotifyWaitable() = default;

ExecutorEntitiesCollector::ExecutorEntitiesCollector(
  std::shared_ptr<ExecutorNotifyWaitable> notify_waitable)
: notify_waitable_(notify_waitable)
{}

ExecutorEntitiesCollector::~ExecutorEntitiesCollector() = default;

void
ExecutorEntitiesCollector::add_node(rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr)
{
  std::atomic_bool & has_executor = node_ptr->get_associated_with_executor_atomic();
  if (has_executor.exchange(true)) {
    return;  // upstream throws
  }
  std::lock_guard<std::mutex> lock(mutex_);
  this->pending_added_nodes_.insert(node_ptr);
}

std::vector<rclcpp::CallbackGroup::WeakPtr>
ExecutorEntitiesCollector::get_all_callback_groups() const
{
  std::vector<rclcpp::CallbackGroup::WeakPtr> groups;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto & group_ptr : manually_added_groups_) {
    groups.push_back(group_ptr);
  }
  for (auto const & group_ptr : automatically_added_groups_) {
    groups.push_back(group_ptr);
  }
  return groups;
}

void
ExecutorEntitiesCollector::update_collections()
{
  std::lock_guard<std::mutex> lock(mutex_);
  this->process_queues();
  this->add_automatically_associated_callback_groups(this->weak_nodes_);
}

void
ExecutorEntitiesCollector::process_queues()
{
  for (auto weak_node_ptr : pending_added_nodes_) {
    auto node_ptr = weak_node_ptr.lock();
    if (!node_ptr) {
      continue;
    }
    weak_nodes_.insert(weak_node_ptr);
    this->add_automatically_associated_callback_groups({weak_node_ptr});
  }
  pending_added_nodes_.clear();
  for (auto weak_group_ptr : pending_manually_added_groups_) {
    if (auto group_ptr = weak_group_ptr.lock()) {
      this->add_callback_group_to_collection(group_ptr, manually_added_groups_);
    }
  }
  pending_manually_added_groups_.clear();
}

void
ExecutorEntitiesCollector::add_automatically_associated_callback_groups(
  const NodeCollection & nodes_to_check)
{
  for (auto & weak_node : nodes_to_check) {
    auto node = weak_node.lock();
    if (node) {
      node->for_each_callback_group(
        [this](rclcpp::CallbackGroup::SharedPtr group_ptr)
        {
          if (!group_ptr->get_associated_with_executor_atomic().load() &&
          group_ptr->automatically_add_to_executor_with_node())
          {
            std::atomic_bool & has_executor = group_ptr->get_associated_with_executor_atomic();
            if (has_executor.exchange(true)) {
              return;  // upstream throws
            }
            this->add_callback_group_to_collection(group_ptr, this->automatically_added_groups_);
          }
        });
    }
  }
}
#endif

}  // namespace executors
}  // namespace rclcpp
