/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tallies of what the workload did, so tests can compare the agent's
 * records with the calls actually made.
 */
#ifndef STANDIN_WL_COUNTS_H
#define STANDIN_WL_COUNTS_H

#include <stdio.h>

/* Order is the order of the `counts` line. */
#define WL_COUNTS(X)                                                        \
	X(rcl_init) X(rcl_node_init) X(rcl_publisher_init)                  \
	X(rcl_subscription_init) X(rclcpp_subscription_init)                \
	X(rclcpp_subscription_callback_added) X(rcl_timer_init)             \
	X(rclcpp_timer_callback_added) X(rclcpp_timer_link_node)            \
	X(rclcpp_callback_register) X(rcl_service_init)                     \
	X(rclcpp_service_callback_added) X(rcl_client_init)                 \
	X(construct_executor) X(construct_static_executor)                  \
	X(add_callback_group) X(add_callback_group_static_executor)         \
	X(executor_entity_collector_to_executor)                            \
	X(callback_group_to_executor_entity_collector)                      \
	X(callback_group_add_timer) X(callback_group_add_subscription)      \
	X(callback_group_add_service) X(callback_group_add_client)

#define WL_COUNT_ENUM(n) WL_C_##n,
enum wl_count { WL_COUNTS(WL_COUNT_ENUM) WL_C_NUM };
#undef WL_COUNT_ENUM

/* Init-time calls (single-threaded). */
void wl_count(enum wl_count c);
void wl_print_counts(FILE *f);

/* Runtime traffic (any executor thread). */
/* An rmw_publish return code: RMW_RET_OK counts as published. */
void wl_count_publish_result(int rmw_ret);
/* The first take and the first answer each print one line, `first
 * taken` / `first answered`, on stdout. */
void wl_count_taken(void);
/* Service traffic: a write's rmw return code, a request served, a
 * response taken. */
enum wl_srv_write { WL_SRV_REQUEST, WL_SRV_RESPONSE };
void wl_count_service_write(enum wl_srv_write w, int rmw_ret);
void wl_count_served(void);
void wl_count_answered(void);
/* `published=N taken=M failed=F` and `requests=.. served=..
 * responses=.. answered=.. failed=..` */
void wl_print_traffic(FILE *f);

#endif
