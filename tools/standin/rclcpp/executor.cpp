// SPDX-License-Identifier: Apache-2.0
// rclcpp::Executor (rclcpp/src/rclcpp/executor.cpp). Humble adds a node's
// groups right away through the virtual add_callback_group_to_map; Jazzy
// queues the node in its ExecutorEntitiesCollector and adds the groups
// when the executor collects its entities (update_collections).
#include "tools/standin/rclcpp/rclcpp.hpp"

namespace rclcpp
{

#ifdef STANDIN_HUMBLE
Executor::Executor(const rclcpp::ExecutorOptions & options)
: spinning(false),
  shutdown_guard_condition_(std::make_shared<rclcpp::GuardCondition>()),
  memory_strategy_(options.memory_strategy),
  context_(options.context)
{}

Executor::~Executor() = default;

void
Executor::add_node(rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr, bool notify)
{
  std::atomic_bool & has_executor = node_ptr->get_associated_with_executor_atomic();
  if (has_executor.exchange(true)) {
    return;  // upstream throws; a C caller could not catch it
  }
  std::lock_guard<std::mutex> guard{mutex_};
  node_ptr->for_each_callback_group(
    [this, node_ptr, notify](rclcpp::CallbackGroup::SharedPtr group_ptr)
    {
      if (!group_ptr->get_associated_with_executor_atomic().load() &&
      group_ptr->automatically_add_to_executor_with_node())
      {
        this->add_callback_group_to_map(
          group_ptr, node_ptr, weak_groups_to_nodes_associated_with_executor_, notify);
      }
    });
  weak_nodes_.push_back(node_ptr);
}

std::vector<rclcpp::CallbackGroup::WeakPtr>
Executor::get_all_callback_groups()
{
  std::vector<rclcpp::CallbackGroup::WeakPtr> groups;
  std::lock_guard<std::mutex> guard{mutex_};
  for (const auto & kv : weak_groups_associated_with_executor_to_nodes_) {
    groups.push_back(kv.first);
  }
  for (const auto & kv : weak_groups_to_nodes_associated_with_executor_) {
    groups.push_back(kv.first);
  }
  return groups;
}

void
Executor::standin_collect_entities()
{}

#else

Executor::Executor(const rclcpp::ExecutorOptions & options)
: spinning(false),
  interrupt_guard_condition_(std::make_shared<rclcpp::GuardCondition>()),
  shutdown_guard_condition_(std::make_shared<rclcpp::GuardCondition>()),
  context_(options.context),
  notify_waitable_(std::make_shared<rclcpp::executors::ExecutorNotifyWaitable>()),
  entities_need_rebuild_(true),
  collector_(notify_waitable_)
{}

Executor::~Executor() = default;

void
Executor::add_node(rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr, bool notify)
{
  (void)notify;  // upstream: trigger_entity_recollect(notify)
  this->collector_.add_node(node_ptr);
}

std::vector<rclcpp::CallbackGroup::WeakPtr>
Executor::get_all_callback_groups()
{
  return collector_.get_all_callback_groups();
}

// Upstream Executor::collect_entities() starts with this call.
void
Executor::standin_collect_entities()
{
  collector_.update_collections();
}
#endif

}  // namespace rclcpp
