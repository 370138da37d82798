// SPDX-License-Identifier: Apache-2.0
// Guard conditions, options, waitables, the entity bases and the node base.
// The get_X_handle() getters hand out a shared_ptr to the rcl handle, as
// upstream (timer.cpp, subscription_base.cpp, service.cpp, client.cpp); the
// handles belong to the workload and are never freed, hence no deleter.
#include "tools/standin/rclcpp/rclcpp.hpp"

namespace rclcpp
{

namespace
{
template<typename T>
std::shared_ptr<T> unowned(const void * p)
{
  return std::shared_ptr<T>(static_cast<T *>(const_cast<void *>(p)), [](T *) {});
}
}  // namespace

GuardCondition::GuardCondition()
: rcl_guard_condition_{nullptr, nullptr}
{}
GuardCondition::~GuardCondition() = default;

ExecutorOptions::ExecutorOptions()
: max_conditions(0)
{}

Waitable::~Waitable() = default;

TimerBase::TimerBase(const void * rcl_handle, void * user)
: timer_handle_(unowned<const rcl_timer_t>(rcl_handle)), user_(user) {}
TimerBase::~TimerBase() = default;
std::shared_ptr<const rcl_timer_t> TimerBase::get_timer_handle() {return timer_handle_;}

SubscriptionBase::SubscriptionBase(const void * rcl_handle, void * user)
: subscription_handle_(unowned<rcl_subscription_t>(rcl_handle)), user_(user) {}
SubscriptionBase::~SubscriptionBase() = default;
std::shared_ptr<rcl_subscription_t> SubscriptionBase::get_subscription_handle()
{
  return subscription_handle_;
}

ServiceBase::ServiceBase(const void * rcl_handle, void * user)
: service_handle_(unowned<rcl_service_t>(rcl_handle)), user_(user) {}
ServiceBase::~ServiceBase() = default;
std::shared_ptr<rcl_service_t> ServiceBase::get_service_handle() {return service_handle_;}

ClientBase::ClientBase(const void * rcl_handle, void * user)
: client_handle_(unowned<rcl_client_t>(rcl_handle)), user_(user) {}
ClientBase::~ClientBase() = default;
std::shared_ptr<rcl_client_t> ClientBase::get_client_handle() {return client_handle_;}

namespace node_interfaces
{
NodeBaseInterface::~NodeBaseInterface() = default;

StandinNodeBase::StandinNodeBase(const void * rcl_node_handle)
: rcl_node_handle_(rcl_node_handle) {}
StandinNodeBase::~StandinNodeBase() = default;

std::atomic_bool &
StandinNodeBase::get_associated_with_executor_atomic()
{
  return associated_with_executor_;
}

// node_base.cpp: iterate the live groups under the groups mutex.
void
StandinNodeBase::for_each_callback_group(const CallbackGroupFunction & func)
{
  std::lock_guard<std::mutex> lock(callback_groups_mutex_);
  for (auto & weak_group : callback_groups_) {
    if (auto group = weak_group.lock()) {
      func(group);
    }
  }
}

CallbackGroup::SharedPtr
StandinNodeBase::create_callback_group(
  CallbackGroupType group_type, bool automatically_add_to_executor_with_node)
{
  auto group = std::make_shared<CallbackGroup>(group_type, automatically_add_to_executor_with_node);
  std::lock_guard<std::mutex> lock(callback_groups_mutex_);
  callback_groups_.push_back(group);
  return group;
}
}  // namespace node_interfaces

}  // namespace rclcpp
