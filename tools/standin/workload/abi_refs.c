/* SPDX-License-Identifier: Apache-2.0 */
/*
 * References to the rclcpp functions the workload never calls but a
 * tracing agent interposes inside librclcpp.so, under the mangled names
 * the agent uses (proto/rclcpp_abi.h, and CARET's jazzy hooks): linking
 * fails if the C++ stand-in does not export exactly these names.
 */
#include "tools/standin/rclcpp/standin_rclcpp.h"

#define REF(var, sym) extern char var[] __asm__(sym)

REF(ref_timer_handle, CARET_SYM_TIMER_HANDLE);
REF(ref_sub_handle, CARET_SYM_SUB_HANDLE);
REF(ref_srv_handle, CARET_SYM_SRV_HANDLE);
REF(ref_cli_handle, CARET_SYM_CLI_HANDLE);
REF(ref_executor_c2, STANDIN_SYM_EXECUTOR_C2);
#ifdef STANDIN_HUMBLE
REF(ref_add_to_map, CARET_SYM_EXEC_ADD_CBG);
REF(ref_seec_add, CARET_SYM_SEEC_ADD_CBG);
#else
REF(ref_add_to_collection, STANDIN_SYM_EEC_ADD_TO_COLLECTION);
#endif

int standin_abi_refs(void)
{
	const void *refs[] = {
		ref_timer_handle, ref_sub_handle, ref_srv_handle,
		ref_cli_handle, ref_executor_c2,
		(const void *)standin_ste_ctor, (const void *)standin_mte_ctor,
		(const void *)standin_sste_ctor, (const void *)standin_cbg_type,
		(const void *)standin_cbg_add_timer,
#ifdef STANDIN_HUMBLE
		ref_add_to_map, ref_seec_add,
#else
		ref_add_to_collection,
#endif
	};
	int n = 0;

	for (unsigned i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		n += refs[i] != 0;
	return n;
}
