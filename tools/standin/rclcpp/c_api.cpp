// SPDX-License-Identifier: Apache-2.0
// The extern "C" half of standin_rclcpp.h.
#include <new>

#include "tools/standin/rclcpp/rclcpp.hpp"
#include "tools/standin/rclcpp/standin_rclcpp.h"

using rclcpp::CallbackGroup;
using rclcpp::node_interfaces::NodeBaseInterface;
using rclcpp::node_interfaces::StandinNodeBase;

static_assert(sizeof(standin_sp) == sizeof(std::shared_ptr<void>), "shared_ptr is two words");
static_assert(
  static_cast<int>(rclcpp::CallbackGroupType::Reentrant) == CARET_CBG_REENTRANT &&
  static_cast<int>(rclcpp::CallbackGroupType::MutuallyExclusive) == CARET_CBG_MUTUALLY_EXCLUSIVE,
  "CallbackGroupType values");

namespace
{
template<typename T>
standin_sp to_c(std::shared_ptr<T> sp)
{
  standin_sp out;
  new (&out) std::shared_ptr<T>(std::move(sp));
  return out;
}

template<typename T>
std::shared_ptr<T> & from_c(standin_sp * sp)
{
  return *reinterpret_cast<std::shared_ptr<T> *>(sp);
}
}  // namespace

extern "C" {

standin_sp standin_node_base_new(const void * rcl_node_handle)
{
  return to_c(std::shared_ptr<NodeBaseInterface>(
      std::make_shared<StandinNodeBase>(rcl_node_handle)));
}

standin_sp standin_node_create_callback_group(standin_sp * node, enum caret_cbg_type type)
{
  auto & n = from_c<NodeBaseInterface>(node);
  auto * base = static_cast<StandinNodeBase *>(n.get());
  return to_c(base->create_callback_group(static_cast<rclcpp::CallbackGroupType>(type)));
}

standin_sp standin_entity_new(enum standin_entity_kind kind, const void * rcl_handle, void * user)
{
  switch (kind) {
    case STANDIN_TIMER: return to_c(std::make_shared<rclcpp::TimerBase>(rcl_handle, user));
    case STANDIN_SUBSCRIPTION:
      return to_c(std::make_shared<rclcpp::SubscriptionBase>(rcl_handle, user));
    case STANDIN_SERVICE: return to_c(std::make_shared<rclcpp::ServiceBase>(rcl_handle, user));
    case STANDIN_CLIENT: return to_c(std::make_shared<rclcpp::ClientBase>(rcl_handle, user));
  }
  return standin_sp{nullptr, nullptr};
}

standin_sp standin_sp_copy(const standin_sp * sp)
{
  return to_c(*reinterpret_cast<const std::shared_ptr<void> *>(sp));
}

void standin_sp_release(standin_sp * sp)
{
  from_c<void>(sp).~shared_ptr();
  sp->ptr = nullptr;
  sp->ctrl = nullptr;
}

size_t standin_executor_options_size(void)
{
  return sizeof(rclcpp::ExecutorOptions);
}

void standin_executor_options_init(void * storage)
{
  new (storage) rclcpp::ExecutorOptions();
}

size_t standin_executor_size(enum standin_exec_kind kind)
{
  switch (kind) {
    case STANDIN_EXEC_SINGLE: return sizeof(rclcpp::executors::SingleThreadedExecutor);
    case STANDIN_EXEC_MULTI: return sizeof(rclcpp::executors::MultiThreadedExecutor);
    case STANDIN_EXEC_STATIC: return sizeof(rclcpp::executors::StaticSingleThreadedExecutor);
  }
  return 0;
}

void standin_executor_add_node(void * executor, standin_sp * node)
{
  static_cast<rclcpp::Executor *>(executor)->add_node(from_c<NodeBaseInterface>(node), true);
}

void standin_executor_collect(void * executor)
{
  static_cast<rclcpp::Executor *>(executor)->standin_collect_entities();
}

size_t standin_executor_threads(void * executor, enum standin_exec_kind kind)
{
  if (kind != STANDIN_EXEC_MULTI) {
    return 1;
  }
  return static_cast<rclcpp::executors::MultiThreadedExecutor *>(executor)->
         get_number_of_threads();
}

size_t standin_executor_groups(void * executor, void ** groups, size_t cap)
{
  auto all = static_cast<rclcpp::Executor *>(executor)->get_all_callback_groups();
  size_t n = 0;
  for (auto & weak : all) {
    if (auto g = weak.lock()) {
      if (n < cap) {
        groups[n] = g.get();
      }
      n++;
    }
  }
  return n;
}

size_t standin_group_entities(
  const void * group, enum standin_entity_kind kind, void ** users, size_t cap)
{
  auto v = static_cast<const CallbackGroup *>(group)->standin_users(static_cast<int>(kind));
  for (size_t i = 0; i < v.size() && i < cap; i++) {
    users[i] = v[i];
  }
  return v.size();
}

}  // extern "C"
