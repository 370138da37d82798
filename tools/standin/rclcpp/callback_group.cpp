// SPDX-License-Identifier: Apache-2.0
// rclcpp::CallbackGroup (rclcpp/src/rclcpp/callback_group.cpp, humble and
// jazzy): entities are kept as weak pointers, added by the node interfaces.
#include "tools/standin/rclcpp/rclcpp.hpp"

namespace rclcpp
{

CallbackGroup::CallbackGroup(
  CallbackGroupType group_type, bool automatically_add_to_executor_with_node)
: type_(group_type), associated_with_executor_(false),
  can_be_taken_from_(true),
  automatically_add_to_executor_with_node_(automatically_add_to_executor_with_node)
{}

CallbackGroup::~CallbackGroup() = default;

const CallbackGroupType &
CallbackGroup::type() const
{
  return type_;
}

std::atomic_bool &
CallbackGroup::get_associated_with_executor_atomic()
{
  return associated_with_executor_;
}

bool
CallbackGroup::automatically_add_to_executor_with_node() const
{
  return automatically_add_to_executor_with_node_;
}

void
CallbackGroup::add_subscription(const SubscriptionBase::SharedPtr subscription_ptr)
{
  std::lock_guard<std::mutex> lock(mutex_);
  subscription_ptrs_.push_back(subscription_ptr);
}

void
CallbackGroup::add_timer(const TimerBase::SharedPtr timer_ptr)
{
  std::lock_guard<std::mutex> lock(mutex_);
  timer_ptrs_.push_back(timer_ptr);
}

void
CallbackGroup::add_service(const ServiceBase::SharedPtr service_ptr)
{
  std::lock_guard<std::mutex> lock(mutex_);
  service_ptrs_.push_back(service_ptr);
}

void
CallbackGroup::add_client(const ClientBase::SharedPtr client_ptr)
{
  std::lock_guard<std::mutex> lock(mutex_);
  client_ptrs_.push_back(client_ptr);
}

// kind: 0 timers, 1 subscriptions, 2 services, 3 clients (standin_rclcpp.h).
std::vector<void *>
CallbackGroup::standin_users(int kind) const
{
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<void *> out;
  auto collect = [&out](const auto & v) {
      for (const auto & w : v) {
        if (auto p = w.lock()) {
          out.push_back(p->standin_user());
        }
      }
    };
  switch (kind) {
    case 0: collect(timer_ptrs_); break;
    case 1: collect(subscription_ptrs_); break;
    case 2: collect(service_ptrs_); break;
    case 3: collect(client_ptrs_); break;
  }
  return out;
}

}  // namespace rclcpp
