/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret-standin-clock: a ROS 2 /clock publisher (a simulator's, or `ros2
 * bag play --clock`'s) for trying `caretctl record -c` without ROS 2.
 * It publishes rosgraph_msgs/msg/Clock on /clock as the RMW chosen by
 * --rmw or $RMW_IMPLEMENTATION (as ROS 2; default rmw_fastrtps_cpp,
 * upstream's default) does: DDS topic "rt/clock", type
 * "rosgraph_msgs::msg::dds_::Clock_" (proto/ros_clock.idl), with
 * rclcpp's ClockQoS (rclcpp qos.cpp: the sensor-data profile, best
 * effort, volatile, keep last 1; --reliable for a reliable publisher).
 * Sim time starts at --start seconds and advances --speed sim seconds per
 * wall second (negative: back, below 0 into stamps ROS refuses), one
 * sample every 1/--rate s. Each published stamp is
 * printed ("stamp NS", nanoseconds) so a test can compare the trace with
 * what was sent.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dds/dds.h>

#include "ros_clock.h"
#include "tools/standin/clock/clock_pub_fastdds.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static dds_entity_t cdds_open(int domain, int reliable)
{
	dds_entity_t pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	if (pp < 0)
		return pp;
	dds_entity_t t = dds_create_topic(pp, &rosgraph_msgs_msg_dds__Clock__desc, "rt/clock", NULL,
					  NULL);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT,
			     DDS_MSECS(100));
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	/* rmw_cyclonedds writes XCDR1 (allowed_data_representation) */
	dds_data_representation_id_t rep = DDS_DATA_REPRESENTATION_XCDR1;
	dds_qset_data_representation(q, 1, &rep);
	dds_entity_t w = t < 0 ? t : dds_create_writer(pp, t, q, NULL);
	dds_delete_qos(q);
	return w;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: caret-standin-clock [--rmw rmw_cyclonedds_cpp|rmw_fastrtps_cpp]\n"
		   "  [--domain N] [--rate HZ] [--start SECONDS] [--speed X] [--duration S]\n"
		   "  [--reliable]\n");
}

int main(int argc, char **argv)
{
	const char *rmw = getenv("RMW_IMPLEMENTATION");
	const char *dom = getenv("ROS_DOMAIN_ID");
	int domain = dom && *dom ? atoi(dom) : 0, reliable = 0;
	double rate = 100, start = 1000, speed = 1, duration = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--reliable")) {
			reliable = 1;
			continue;
		}
		if (!v) {
			usage(stderr);
			return 2;
		}
		if (!strcmp(a, "--rmw"))
			rmw = v;
		else if (!strcmp(a, "--domain"))
			domain = atoi(v);
		else if (!strcmp(a, "--rate"))
			rate = atof(v);
		else if (!strcmp(a, "--start"))
			start = atof(v);
		else if (!strcmp(a, "--speed"))
			speed = atof(v);
		else if (!strcmp(a, "--duration"))
			duration = atof(v);
		else {
			usage(stderr);
			return 2;
		}
		i++;
	}
	if (!rmw || !*rmw)
		rmw = "rmw_fastrtps_cpp";
	bool fast = strcmp(rmw, "rmw_fastrtps_cpp") == 0;
	if (!fast && strcmp(rmw, "rmw_cyclonedds_cpp") != 0) {
		fprintf(stderr, "caret-standin-clock: unknown RMW %s\n", rmw);
		return 2;
	}
	/* a negative --speed sends sim time back at every sample (a reset
	 * loop, or a hostile publisher), down to invalid negative stamps */
	if (rate <= 0 || start < 0) {
		usage(stderr);
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	dds_entity_t w = 0;
	if (fast ? clock_fastdds_open(domain, reliable) < 0 : (w = cdds_open(domain, reliable)) < 0) {
		fprintf(stderr, "caret-standin-clock: cannot publish /clock on domain %d (%s)\n",
			domain, rmw);
		return 1;
	}
	fprintf(stderr, "caret-standin-clock: publishing /clock on domain %d with %s\n", domain,
		rmw);
	double t0 = now_s();
	long long k = 0;
	while (!stop) {
		double el = now_s() - t0;
		if (duration > 0 && el >= duration)
			break;
		long long ns = (long long)((start + el * speed) * 1e9);
		/* below 0: sec rounded down, nanosec in [0, 1e9) as rclcpp's
		 * Time would write it; a stamp the reader must refuse */
		long long sec = ns >= 0 ? ns / 1000000000 : -((-ns + 999999999) / 1000000000);
		rosgraph_msgs_msg_dds__Clock_ m = {
			.clock = { .sec = (int32_t)sec, .nanosec = (uint32_t)(ns - sec * 1000000000) }
		};
		int r = fast ? clock_fastdds_write(m.clock.sec, m.clock.nanosec) : dds_write(w, &m);
		if (r == 0) {
			printf("stamp %lld\n", ns);
			fflush(stdout);
		}
		k++;
		double next = t0 + k / rate, d = next - now_s();
		if (d > 0) {
			struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
			nanosleep(&ts, NULL);
		}
	}
	if (fast)
		clock_fastdds_close();
	else
		dds_delete(DDS_CYCLONEDDS_HANDLE);
	return 0;
}
