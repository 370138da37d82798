/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Simulation time (`caretctl record -c/--record-clock`, as `ros2 caret
 * record -c`): `record`'s fields for it. Every name here is part of the
 * control protocol.
 *
 *  "record" {..., "record_clock"? true, "clock_domain"? 0..232}
 *     While the recording records (from its start, or its "go" when
 *     armed, to its stop), caretd runs caret-simclock as the requester:
 *     ROS 2's /clock of DDS domain clock_domain (the requester's
 *     ROS_DOMAIN_ID; default 0) becomes ros2_caret:sim_time events
 *     (CARET's layout: uint64 stamp, nanoseconds of sim time).
 *     clock_domain only with record_clock.
 */
#ifndef CARET_CTL_SIMCLOCK_H
#define CARET_CTL_SIMCLOCK_H

#define CARET_CTL_K_RECORD_CLOCK "record_clock"
#define CARET_CTL_K_CLOCK_DOMAIN "clock_domain"
/* ROS 2's domain ids on Linux (rcl, ROS_DOMAIN_ID: DDS's port arithmetic
 * fits up to 232) */
#define CARET_CTL_CLOCK_DOMAIN_MAX 232

#endif
