/* SPDX-License-Identifier: Apache-2.0 */
#ifndef STANDIN_WL_MAIN_H
#define STANDIN_WL_MAIN_H

/* The whole workload; exported from libstandin_rclpy.so for py_host.c. */
__attribute__((visibility("default"))) int wl_main(int argc, char **argv);

#endif
