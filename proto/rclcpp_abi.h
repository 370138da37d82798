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
/* CallbackGroupType CallbackGroup::type() const */
#define CARET_SYM_CBG_TYPE "_ZNK6rclcpp13CallbackGroup4typeEv"
/* std::shared_ptr<rcl_X_t> XBase::get_X_handle() (returned by value) */
#define CARET_SYM_TIMER_HANDLE "_ZN6rclcpp9TimerBase16get_timer_handleEv"
#define CARET_SYM_SUB_HANDLE \
	"_ZN6rclcpp16SubscriptionBase23get_subscription_handleEv"
#define CARET_SYM_SRV_HANDLE "_ZN6rclcpp11ServiceBase18get_service_handleEv"
#define CARET_SYM_CLI_HANDLE "_ZN6rclcpp10ClientBase17get_client_handleEv"

/* rclcpp::CallbackGroupType values returned by CallbackGroup::type(). */
enum caret_cbg_type {
	CARET_CBG_MUTUALLY_EXCLUSIVE = 0,
	CARET_CBG_REENTRANT = 1,
};

/*
 * Byte offset of `std::shared_ptr<StaticExecutorEntitiesCollector>
 * entities_collector_` inside a StaticSingleThreadedExecutor (Humble,
 * libstdc++, 64-bit). The analyzer needs the collector address to tie the
 * static executor to its callback groups; rclcpp exports no getter, so the
 * agent reads the member after the constructor returns. The stand-in lays
 * its object out the same way. Verify on each new distribution.
 */
#define CARET_SSTE_COLLECTOR_OFFSET 0x160

/* libstdc++ _Sp_counted_base: vptr, then the atomic int use count. */
#define CARET_SP_USE_COUNT_OFFSET 8

#endif
