// SPDX-License-Identifier: Apache-2.0
//
// The rclcpp stand-in's classes. Each class declares the real members in
// the real order with the real types (up to the last member the tracing
// agent reads, or further), so the compiler computes the real layouts, and
// the real member-function signatures, so the mangled names are the real
// ones. One header, two flavours: STANDIN_HUMBLE mirrors ros2/rclcpp
// branch humble at 99f1d8d1, otherwise branch jazzy at 985e320d. Only what
// the stand-in needs is declared; what is declared is upstream's.
#ifndef STANDIN_RCLCPP_HPP
#define STANDIN_RCLCPP_HPP

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

// rcl types embedded by value. Mirrors ros2/rcl humble
// rcl/include/rcl/wait.h (rcl_wait_set_s) and guard_condition.h.
extern "C" {
typedef struct rcl_timer_s rcl_timer_t;
typedef struct rcl_subscription_s rcl_subscription_t;
typedef struct rcl_service_s rcl_service_t;
typedef struct rcl_client_s rcl_client_t;
typedef struct rcl_node_s rcl_node_t;
typedef struct rcl_guard_condition_s
{
  void * context;  // rcl_context_t *
  void * impl;     // rcl_guard_condition_impl_t *
} rcl_guard_condition_t;
typedef struct rcl_wait_set_s
{
  const void ** subscriptions;
  size_t size_of_subscriptions;
  const void ** guard_conditions;
  size_t size_of_guard_conditions;
  const void ** timers;
  size_t size_of_timers;
  const void ** clients;
  size_t size_of_clients;
  const void ** services;
  size_t size_of_services;
  const void ** events;
  size_t size_of_events;
  void * impl;
} rcl_wait_set_t;
}

namespace rclcpp
{

class Context;  // only held through shared_ptr / weak_ptr here
namespace memory_strategy
{
class MemoryStrategy;
}

// rclcpp/include/rclcpp/context.hpp (humble, jazzy): ShutdownCallbackHandle.
class ShutdownCallbackHandle
{
public:
  using ShutdownCallbackType = std::function<void ()>;

private:
  std::weak_ptr<ShutdownCallbackType> callback;
};
using OnShutdownCallbackHandle = ShutdownCallbackHandle;

// rclcpp/include/rclcpp/guard_condition.hpp (humble, jazzy): full member list.
class GuardCondition
{
public:
  using SharedPtr = std::shared_ptr<GuardCondition>;
  using WeakPtr = std::weak_ptr<GuardCondition>;
  GuardCondition();
  virtual ~GuardCondition();

protected:
  std::shared_ptr<Context> context_;
  rcl_guard_condition_t rcl_guard_condition_;
  std::atomic<bool> in_use_by_wait_set_{false};
  std::recursive_mutex reentrant_mutex_;
  std::function<void(size_t)> on_trigger_callback_{nullptr};
  size_t unread_count_{0};
  rcl_wait_set_t * wait_set_{nullptr};
};

// rclcpp/include/rclcpp/executor_options.hpp (humble, jazzy).
struct ExecutorOptions
{
  ExecutorOptions();
  std::shared_ptr<memory_strategy::MemoryStrategy> memory_strategy;
  std::shared_ptr<Context> context;
  size_t max_conditions;
};

// rclcpp/include/rclcpp/waitable.hpp: virtual base, then
// in_use_by_wait_set_ (humble l.262, jazzy l.313).
class Waitable
{
public:
  using SharedPtr = std::shared_ptr<Waitable>;
  using WeakPtr = std::weak_ptr<Waitable>;
  virtual ~Waitable();

private:
  std::atomic<bool> in_use_by_wait_set_{false};
};

// The four executable entity bases. The agent only calls their handle
// getters (real names and signatures: timer.hpp, subscription_base.hpp,
// service.hpp, client.hpp); their data members are the stand-in's own.
class TimerBase
{
public:
  using SharedPtr = std::shared_ptr<TimerBase>;
  using WeakPtr = std::weak_ptr<TimerBase>;
  TimerBase(const void * rcl_handle, void * user);
  virtual ~TimerBase();
  std::shared_ptr<const rcl_timer_t> get_timer_handle();
  void * standin_user() const {return user_;}

private:
  std::shared_ptr<const rcl_timer_t> timer_handle_;
  void * user_;
};

class SubscriptionBase
{
public:
  using SharedPtr = std::shared_ptr<SubscriptionBase>;
  using WeakPtr = std::weak_ptr<SubscriptionBase>;
  SubscriptionBase(const void * rcl_handle, void * user);
  virtual ~SubscriptionBase();
  std::shared_ptr<rcl_subscription_t> get_subscription_handle();
  void * standin_user() const {return user_;}

private:
  std::shared_ptr<rcl_subscription_t> subscription_handle_;
  void * user_;
};

class ServiceBase
{
public:
  using SharedPtr = std::shared_ptr<ServiceBase>;
  using WeakPtr = std::weak_ptr<ServiceBase>;
  ServiceBase(const void * rcl_handle, void * user);
  virtual ~ServiceBase();
  std::shared_ptr<rcl_service_t> get_service_handle();
  void * standin_user() const {return user_;}

private:
  std::shared_ptr<rcl_service_t> service_handle_;
  void * user_;
};

class ClientBase
{
public:
  using SharedPtr = std::shared_ptr<ClientBase>;
  using WeakPtr = std::weak_ptr<ClientBase>;
  ClientBase(const void * rcl_handle, void * user);
  virtual ~ClientBase();
  std::shared_ptr<rcl_client_t> get_client_handle();
  void * standin_user() const {return user_;}

private:
  std::shared_ptr<rcl_client_t> client_handle_;
  void * user_;
};

// rclcpp/include/rclcpp/callback_group.hpp (humble l.46, jazzy l.46).
enum class CallbackGroupType
{
  MutuallyExclusive,
  Reentrant
};

// rclcpp/include/rclcpp/callback_group.hpp, full member list in order
// (humble 99f1d8d1; jazzy 985e320d adds context_ last). type() returns a
// const reference (humble l.145, jazzy l.208): the caller receives the
// address of type_, not its value.
class CallbackGroup
{
public:
  using SharedPtr = std::shared_ptr<CallbackGroup>;
  using WeakPtr = std::weak_ptr<CallbackGroup>;

  explicit CallbackGroup(
    CallbackGroupType group_type,
    bool automatically_add_to_executor_with_node = true);
  ~CallbackGroup();

  const CallbackGroupType & type() const;
  std::atomic_bool & get_associated_with_executor_atomic();
  bool automatically_add_to_executor_with_node() const;

  // Stand-in accessor (upstream walks these with collect_all_ptrs()).
  std::vector<void *> standin_users(int kind) const;

  // Upstream the add_X functions and the members below are protected and
  // reached by the node interfaces (friends); access does not change the
  // layout or the mangled names, and the stand-in's node code is C.
  void add_subscription(const SubscriptionBase::SharedPtr subscription_ptr);
  void add_timer(const TimerBase::SharedPtr timer_ptr);
  void add_service(const ServiceBase::SharedPtr service_ptr);
  void add_client(const ClientBase::SharedPtr client_ptr);

  CallbackGroupType type_;
  mutable std::mutex mutex_;
  std::atomic_bool associated_with_executor_;
  std::vector<SubscriptionBase::WeakPtr> subscription_ptrs_;
  std::vector<TimerBase::WeakPtr> timer_ptrs_;
  std::vector<ServiceBase::WeakPtr> service_ptrs_;
  std::vector<ClientBase::WeakPtr> client_ptrs_;
  std::vector<Waitable::WeakPtr> waitable_ptrs_;
  std::atomic_bool can_be_taken_from_;
  const bool automatically_add_to_executor_with_node_;
  std::shared_ptr<GuardCondition> notify_guard_condition_ = nullptr;
  std::recursive_mutex notify_guard_condition_mutex_;
#ifndef STANDIN_HUMBLE
  std::weak_ptr<Context> context_;
#endif
};

namespace node_interfaces
{
// rclcpp/include/rclcpp/node_interfaces/node_base_interface.hpp: an
// interface; the executors use these three of its pure virtuals.
class NodeBaseInterface
{
public:
  using SharedPtr = std::shared_ptr<NodeBaseInterface>;
  using WeakPtr = std::weak_ptr<NodeBaseInterface>;
  using CallbackGroupFunction = std::function<void (rclcpp::CallbackGroup::SharedPtr)>;
  virtual ~NodeBaseInterface();
  virtual std::atomic_bool & get_associated_with_executor_atomic() = 0;
  virtual void for_each_callback_group(const CallbackGroupFunction & func) = 0;
};

// Stand-in for rclcpp::node_interfaces::NodeBase (not its layout).
class StandinNodeBase : public NodeBaseInterface
{
public:
  explicit StandinNodeBase(const void * rcl_node_handle);
  ~StandinNodeBase() override;
  std::atomic_bool & get_associated_with_executor_atomic() override;
  void for_each_callback_group(const CallbackGroupFunction & func) override;
  CallbackGroup::SharedPtr create_callback_group(
    CallbackGroupType group_type, bool automatically_add_to_executor_with_node = true);

private:
  const void * rcl_node_handle_;
  std::atomic_bool associated_with_executor_{false};
  std::mutex callback_groups_mutex_;
  std::vector<CallbackGroup::WeakPtr> callback_groups_;
};
}  // namespace node_interfaces

// rclcpp/include/rclcpp/executor.hpp l.48-50 (humble): the map type.
typedef std::map<rclcpp::CallbackGroup::WeakPtr,
    rclcpp::node_interfaces::NodeBaseInterface::WeakPtr,
    std::owner_less<rclcpp::CallbackGroup::WeakPtr>> WeakCallbackGroupsToNodesMap;

namespace executors
{
#ifndef STANDIN_HUMBLE
// rclcpp/include/rclcpp/executors/executor_notify_waitable.hpp (jazzy):
// only held through shared_ptr here.
class ExecutorNotifyWaitable : public rclcpp::Waitable
{
public:
  ~ExecutorNotifyWaitable() override;
};

// rclcpp/include/rclcpp/executors/executor_entities_collector.hpp (jazzy),
// full member list in order.
class ExecutorEntitiesCollector
{
public:
  explicit ExecutorEntitiesCollector(std::shared_ptr<ExecutorNotifyWaitable> notify_waitable);
  ~ExecutorEntitiesCollector();
  void add_node(rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr);
  std::vector<rclcpp::CallbackGroup::WeakPtr> get_all_callback_groups() const;
  void update_collections();

protected:
  using NodeCollection = std::set<
    rclcpp::node_interfaces::NodeBaseInterface::WeakPtr,
    std::owner_less<rclcpp::node_interfaces::NodeBaseInterface::WeakPtr>>;
  using CallbackGroupCollection = std::set<
    rclcpp::CallbackGroup::WeakPtr,
    std::owner_less<rclcpp::CallbackGroup::WeakPtr>>;
  using WeakNodesToGuardConditionsMap = std::map<
    rclcpp::node_interfaces::NodeBaseInterface::WeakPtr,
    rclcpp::GuardCondition::WeakPtr,
    std::owner_less<rclcpp::node_interfaces::NodeBaseInterface::WeakPtr>>;
  using WeakGroupsToGuardConditionsMap = std::map<
    rclcpp::CallbackGroup::WeakPtr,
    rclcpp::GuardCondition::WeakPtr,
    std::owner_less<rclcpp::CallbackGroup::WeakPtr>>;

  void add_callback_group_to_collection(
    rclcpp::CallbackGroup::SharedPtr group_ptr,
    CallbackGroupCollection & collection);
  void process_queues();
  void add_automatically_associated_callback_groups(const NodeCollection & nodes_to_check);

  mutable std::mutex mutex_;
  CallbackGroupCollection manually_added_groups_;
  CallbackGroupCollection automatically_added_groups_;
  NodeCollection weak_nodes_;
  WeakNodesToGuardConditionsMap weak_nodes_to_guard_conditions_;
  WeakGroupsToGuardConditionsMap weak_groups_to_guard_conditions_;
  NodeCollection pending_added_nodes_;
  NodeCollection pending_removed_nodes_;
  CallbackGroupCollection pending_manually_added_groups_;
  CallbackGroupCollection pending_manually_removed_groups_;
  std::shared_ptr<ExecutorNotifyWaitable> notify_waitable_;
};
#endif
}  // namespace executors

// rclcpp/include/rclcpp/executor.hpp. Members in order, complete up to
// the last one the agent can read: humble's whole list (its size places
// StaticSingleThreadedExecutor::entities_collector_), jazzy's up to
// collector_ (CARET's hook reads &collector_).
class Executor
{
public:
  explicit Executor(const rclcpp::ExecutorOptions & options = rclcpp::ExecutorOptions());
  virtual ~Executor();
  virtual void spin() = 0;
  virtual void add_node(
    rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr, bool notify = true);
  virtual std::vector<rclcpp::CallbackGroup::WeakPtr> get_all_callback_groups();
  // Stand-in: what spinning does before it waits (jazzy: collect_entities()
  // -> collector_.update_collections(); humble: nothing to do).
  void standin_collect_entities();

protected:
#ifdef STANDIN_HUMBLE
  virtual void add_callback_group_to_map(
    rclcpp::CallbackGroup::SharedPtr group_ptr,
    rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr,
    WeakCallbackGroupsToNodesMap & weak_groups_to_nodes,
    bool notify = true);

  std::atomic_bool spinning;
  rclcpp::GuardCondition interrupt_guard_condition_;
  std::shared_ptr<rclcpp::GuardCondition> shutdown_guard_condition_;
  rcl_wait_set_t wait_set_ = rcl_wait_set_t();
  mutable std::mutex mutex_;
  std::shared_ptr<memory_strategy::MemoryStrategy> memory_strategy_;
  std::shared_ptr<rclcpp::Context> context_;
  typedef std::map<rclcpp::CallbackGroup::WeakPtr,
      const rclcpp::GuardCondition *,
      std::owner_less<rclcpp::CallbackGroup::WeakPtr>>
    WeakCallbackGroupsToGuardConditionsMap;
  WeakCallbackGroupsToGuardConditionsMap weak_groups_to_guard_conditions_;
  WeakCallbackGroupsToNodesMap weak_groups_associated_with_executor_to_nodes_;
  WeakCallbackGroupsToNodesMap weak_groups_to_nodes_associated_with_executor_;
  WeakCallbackGroupsToNodesMap weak_groups_to_nodes_;
  std::list<rclcpp::node_interfaces::NodeBaseInterface::WeakPtr> weak_nodes_;
  rclcpp::OnShutdownCallbackHandle shutdown_callback_handle_;
#else
  std::atomic_bool spinning;
  std::shared_ptr<rclcpp::GuardCondition> interrupt_guard_condition_;
  std::shared_ptr<rclcpp::GuardCondition> shutdown_guard_condition_;
  mutable std::mutex mutex_;
  std::shared_ptr<rclcpp::Context> context_;
  std::shared_ptr<rclcpp::executors::ExecutorNotifyWaitable> notify_waitable_;
  std::atomic_bool entities_need_rebuild_;
  rclcpp::executors::ExecutorEntitiesCollector collector_;
  // (wait_set_, wait_result_, current_collection_, current_notify_waitable_,
  // shutdown_callback_handle_, impl_ follow upstream; not declared here.)
#endif
};

namespace executors
{
#ifdef STANDIN_HUMBLE
// rclcpp/include/rclcpp/executors/static_executor_entities_collector.hpp
// (humble), members in order.
class StaticExecutorEntitiesCollector final
  : public rclcpp::Waitable,
  public std::enable_shared_from_this<StaticExecutorEntitiesCollector>
{
public:
  using SharedPtr = std::shared_ptr<StaticExecutorEntitiesCollector>;
  StaticExecutorEntitiesCollector() = default;
  ~StaticExecutorEntitiesCollector() override;
  bool add_node(rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr);
  bool add_callback_group(
    rclcpp::CallbackGroup::SharedPtr group_ptr,
    rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr,
    WeakCallbackGroupsToNodesMap & weak_groups_to_nodes);
  std::vector<rclcpp::CallbackGroup::WeakPtr> get_all_callback_groups();

private:
  std::shared_ptr<memory_strategy::MemoryStrategy> memory_strategy_;
  WeakCallbackGroupsToNodesMap weak_groups_associated_with_executor_to_nodes_;
  WeakCallbackGroupsToNodesMap weak_groups_to_nodes_associated_with_executor_;
  typedef std::map<rclcpp::node_interfaces::NodeBaseInterface::WeakPtr,
      const rclcpp::GuardCondition *,
      std::owner_less<rclcpp::node_interfaces::NodeBaseInterface::WeakPtr>>
    WeakNodesToGuardConditionsMap;
  WeakNodesToGuardConditionsMap weak_nodes_to_guard_conditions_;
  std::list<rclcpp::node_interfaces::NodeBaseInterface::WeakPtr> weak_nodes_;
  std::mutex new_nodes_mutex_;
  std::vector<rclcpp::node_interfaces::NodeBaseInterface::WeakPtr> new_nodes_;
  rcl_wait_set_t * p_wait_set_ = nullptr;
  // (exec_list_, initialized_ follow upstream.)
};
#endif

// rclcpp/include/rclcpp/executors/single_threaded_executor.hpp: no members.
class SingleThreadedExecutor : public rclcpp::Executor
{
public:
  explicit SingleThreadedExecutor(
    const rclcpp::ExecutorOptions & options = rclcpp::ExecutorOptions());
  ~SingleThreadedExecutor() override;
  void spin() override;
};

// rclcpp/include/rclcpp/executors/multi_threaded_executor.hpp, members in
// order (humble, jazzy).
class MultiThreadedExecutor : public rclcpp::Executor
{
public:
  explicit MultiThreadedExecutor(
    const rclcpp::ExecutorOptions & options = rclcpp::ExecutorOptions(),
    size_t number_of_threads = 0,
    bool yield_before_execute = false,
    std::chrono::nanoseconds timeout = std::chrono::nanoseconds(-1));
  ~MultiThreadedExecutor() override;
  void spin() override;
  size_t get_number_of_threads();

private:
  std::mutex wait_mutex_;
  size_t number_of_threads_;
  bool yield_before_execute_;
  std::chrono::nanoseconds next_exec_timeout_;
};

// rclcpp/include/rclcpp/executors/static_single_threaded_executor.hpp:
// humble has one member, entities_collector_; jazzy (deprecated class)
// none, its collector is the base's collector_.
class StaticSingleThreadedExecutor : public rclcpp::Executor
{
public:
  explicit StaticSingleThreadedExecutor(
    const rclcpp::ExecutorOptions & options = rclcpp::ExecutorOptions());
  ~StaticSingleThreadedExecutor() override;
  void spin() override;
#ifdef STANDIN_HUMBLE
  void add_node(
    rclcpp::node_interfaces::NodeBaseInterface::SharedPtr node_ptr, bool notify = true) override;
  std::vector<rclcpp::CallbackGroup::WeakPtr> get_all_callback_groups() override;

  // Public only so the stand-in can assert its offset.
  StaticExecutorEntitiesCollector::SharedPtr entities_collector_;
#endif
};

}  // namespace executors
}  // namespace rclcpp

#endif
