/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The slice of the rclcpp C++ ABI the agent interposes (DESIGN.md §7).
 *
 * The agent is C and cannot include rclcpp headers, so it sees these
 * functions through their Itanium-mangled names and their calling
 * convention on x86-64 / aarch64 with libstdc++:
 *   - member functions take `this` as the first argument;
 *   - a std::shared_ptr<T> passed BY VALUE is passed by invisible reference:
 *     the callee receives a pointer to a 16-byte object whose first word is
 *     the T* and second word the control block;
 *   - a std::shared_ptr<T> RETURNED by value uses a hidden result pointer
 *     (first argument, before `this`); the caller owns one reference and
 *     must drop it (see caret_sp_release in agent/).
 * The ROS 2 stand-in (tools/standin) defines the same symbols with the same
 * conventions, so the agent runs unchanged against both.
 */
#ifndef CARET_PROTO_RCLCPP_ABI_H
#define CARET_PROTO_RCLCPP_ABI_H

/* rclcpp::executors::SingleThreadedExecutor(const ExecutorOptions &) */
#define CARET_SYM_STE_CTOR \
	"_ZN6rclcpp9executors22SingleThreadedExecutorC1ERKNS_15ExecutorOptionsE"
/* rclcpp::executors::MultiThreadedExecutor(const ExecutorOptions &, size_t,
 * bool, std::chrono::nanoseconds) */
#define CARET_SYM_MTE_CTOR \
	"_ZN6rclcpp9executors21MultiThreadedExecutorC1ERKNS_15ExecutorOptionsEmbNSt6chrono8durationIlSt5ratioILl1ELl1000000000EEEE"
/* rclcpp::executors::StaticSingleThreadedExecutor(const ExecutorOptions &) */
#define CARET_SYM_SSTE_CTOR \
	"_ZN6rclcpp9executors28StaticSingleThreadedExecutorC1ERKNS_15ExecutorOptionsE"
/* void Executor::add_callback_group_to_map(CallbackGroup::SharedPtr,
 * NodeBaseInterface::SharedPtr, WeakCallbackGroupsToNodesMap &, bool) */
#define CARET_SYM_EXEC_ADD_CBG \
	"_ZN6rclcpp8Executor25add_callback_group_to_mapESt10shared_ptrINS_13CallbackGroupEES1_INS_15node_interfaces17NodeBaseInterfaceEERSt3mapISt8weak_ptrIS2_ES8_IS5_ESt10owner_lessIS9_ESaISt4pairIKS9_SA_EEEb"
/* bool StaticExecutorEntitiesCollector::add_callback_group(CallbackGroup::SharedPtr,
 * NodeBaseInterface::SharedPtr, WeakCallbackGroupsToNodesMap &) */
#define CARET_SYM_SEEC_ADD_CBG \
	"_ZN6rclcpp9executors31StaticExecutorEntitiesCollector18add_callback_groupESt10shared_ptrINS_13CallbackGroupEES2_INS_15node_interfaces17NodeBaseInterfaceEERSt3mapISt8weak_ptrIS3_ES9_IS6_ESt10owner_lessISA_ESaISt4pairIKSA_SB_EEE"
/* void CallbackGroup::add_timer(const TimerBase::SharedPtr) etc. */
#define CARET_SYM_CBG_ADD_TIMER \
	"_ZN6rclcpp13CallbackGroup9add_timerESt10shared_ptrINS_9TimerBaseEE"
#define CARET_SYM_CBG_ADD_SUB \
	"_ZN6rclcpp13CallbackGroup16add_subscriptionESt10shared_ptrINS_16SubscriptionBaseEE"
#define CARET_SYM_CBG_ADD_SRV \
	"_ZN6rclcpp13CallbackGroup11add_serviceESt10shared_ptrINS_11ServiceBaseEE"
#define CARET_SYM_CBG_ADD_CLI \
	"_ZN6rclcpp13CallbackGroup10add_clientESt10shared_ptrINS_10ClientBaseEE"
/* const CallbackGroupType & CallbackGroup::type() const */
#define CARET_SYM_CBG_TYPE "_ZNK6rclcpp13CallbackGroup4typeEv"
/* std::shared_ptr<rcl_X_t> XBase::get_X_handle() (returned by value) */
#define CARET_SYM_TIMER_HANDLE "_ZN6rclcpp9TimerBase16get_timer_handleEv"
#define CARET_SYM_SUB_HANDLE \
	"_ZN6rclcpp16SubscriptionBase23get_subscription_handleEv"
#define CARET_SYM_SRV_HANDLE "_ZN6rclcpp11ServiceBase18get_service_handleEv"
#define CARET_SYM_CLI_HANDLE "_ZN6rclcpp10ClientBase17get_client_handleEv"

/* Jazzy (ros2/rclcpp jazzy; hooked by tier4/caret_trace
 * hooked_trace_points.cpp under ROS_DISTRO_JAZZY):
 * Executor::Executor(const ExecutorOptions &), the base-object constructor
 * every derived executor constructor calls. */
#define CARET_SYM_EXECUTOR_C2 "_ZN6rclcpp8ExecutorC2ERKNS_15ExecutorOptionsE"
/* ExecutorEntitiesCollector::ExecutorEntitiesCollector(
 * std::shared_ptr<ExecutorNotifyWaitable>), out of line in
 * executor_entities_collector.cpp; Executor's constructor builds its
 * member `collector_` with it (executor.cpp: collector_(notify_waitable_)),
 * so the collector's address is the `this` of the call made while the
 * Executor constructor runs: no member offset is read. Complete- and
 * base-object variants (a caller may reference either). */
#define CARET_SYM_EEC_CTOR_C1 \
	"_ZN6rclcpp9executors25ExecutorEntitiesCollectorC1ESt10shared_ptrINS0_22ExecutorNotifyWaitableEE"
#define CARET_SYM_EEC_CTOR_C2 \
	"_ZN6rclcpp9executors25ExecutorEntitiesCollectorC2ESt10shared_ptrINS0_22ExecutorNotifyWaitableEE"
/* void ExecutorEntitiesCollector::add_callback_group_to_collection(
 * CallbackGroup::SharedPtr, CallbackGroupCollection &) */
#define CARET_SYM_EEC_ADD_CBG \
	"_ZN6rclcpp9executors25ExecutorEntitiesCollector32add_callback_group_to_collectionESt10shared_ptrINS_13CallbackGroupEERSt3setISt8weak_ptrIS3_ESt10owner_lessIS7_ESaIS7_EE"

/* Humble: StaticSingleThreadedExecutor's collector is created in its
 * constructor by std::make_shared<StaticExecutorEntitiesCollector>() with an
 * inline default constructor (ros2/rclcpp humble
 * static_single_threaded_executor.cpp, static_executor_entities_collector.hpp:
 * `StaticExecutorEntitiesCollector() = default;`), so nothing observable
 * receives it there. Every later use goes through the executor's methods,
 * which call the collector on the same thread (entities_collector_->add_node,
 * ->add_callback_group, ->init in spin): the agent pairs the executor of the
 * innermost such method with the collector whose add_callback_group runs
 * inside it. */
#define CARET_SYM_SSTE_ADD_NODE_BASE \
	"_ZN6rclcpp9executors28StaticSingleThreadedExecutor8add_nodeESt10shared_ptrINS_15node_interfaces17NodeBaseInterfaceEEb"
#define CARET_SYM_SSTE_ADD_NODE \
	"_ZN6rclcpp9executors28StaticSingleThreadedExecutor8add_nodeESt10shared_ptrINS_4NodeEEb"
#define CARET_SYM_SSTE_ADD_CBG \
	"_ZN6rclcpp9executors28StaticSingleThreadedExecutor18add_callback_groupESt10shared_ptrINS_13CallbackGroupEES2_INS_15node_interfaces17NodeBaseInterfaceEEb"
#define CARET_SYM_SSTE_SPIN "_ZN6rclcpp9executors28StaticSingleThreadedExecutor4spinEv"
/* spin_some / spin_all(std::chrono::nanoseconds): init() on first use too. */
#define CARET_SYM_SSTE_SPIN_SOME \
	"_ZN6rclcpp9executors28StaticSingleThreadedExecutor9spin_someENSt6chrono8durationIlSt5ratioILl1ELl1000000000EEEE"
#define CARET_SYM_SSTE_SPIN_ALL \
	"_ZN6rclcpp9executors28StaticSingleThreadedExecutor8spin_allENSt6chrono8durationIlSt5ratioILl1ELl1000000000EEEE"

/* rclcpp::CallbackGroupType values: `enum class CallbackGroupType
 * { MutuallyExclusive, Reentrant }`; CallbackGroup::type() returns
 * `const CallbackGroupType &` (humble and jazzy callback_group.hpp), i.e. a
 * pointer to the member, not the value. */
enum caret_cbg_type {
	CARET_CBG_MUTUALLY_EXCLUSIVE = 0,
	CARET_CBG_REENTRANT = 1,
};

/* libstdc++ _Sp_counted_base: vptr, then the atomic int use count. */
#define CARET_SP_USE_COUNT_OFFSET 8

#endif
