/* SPDX-License-Identifier: Apache-2.0 */
/* A bridge asleep (daemon/bridge/bridge_wake.c, daemon/bridge/bridge_pending.c): what
 * wakes it, which CycloneDDS configurations keep DDS eager, and the
 * broadcasts held while it wakes. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/bridge/bridge.h"
#include "daemon/bridge/bridge_pending.h"
#include "daemon/bridge/bridge_wake.h"
#include "tests/unit/unit.h"

START_TEST(rtps_header)
{
	unsigned char m[20] = "RTPS\x02\x01\x01\x10";
	ck_assert(bridge_wake_is_rtps(m, 20));
	ck_assert(!bridge_wake_is_rtps(m, 19)); /* shorter than a header */
	m[4] = 1;                                /* not RTPS 2.x */
	ck_assert(!bridge_wake_is_rtps(m, 20));
	m[4] = 2;
	m[0] = 'r';
	ck_assert(!bridge_wake_is_rtps(m, 20));
	ck_assert(!bridge_wake_is_rtps("", 0));
}
END_TEST

static int eager(const char *xml)
{
	char why[200] = "";
	int r = bridge_wake_cfg_eager(xml, why, sizeof(why));
	ck_assert(r == 0 || why[0]); /* an eager verdict says why */
	return r;
}

START_TEST(configurations)
{
	/* what the socket hears: default discovery, whatever the interfaces */
	ck_assert_int_eq(eager(""), 0);
	ck_assert_int_eq(eager("<CycloneDDS><Domain id=\"any\"><General><Interfaces>"
			       "<NetworkInterface name=\"veth0\"/></Interfaces></General>"
			       "</Domain></CycloneDDS>"),
			 0);
	ck_assert_int_eq(eager("<General><AllowMulticast>spdp</AllowMulticast></General>"), 0);
	ck_assert_int_eq(eager("<allowmulticast> TRUE </allowmulticast>"), 0);
	ck_assert_int_eq(eager("<AllowMulticast>default</AllowMulticast>"), 0);
	ck_assert_int_eq(eager("<AllowMulticast>spdp,ssm</AllowMulticast>"), 0);
	/* what it cannot: unicast peers, multicast off, other ports or group */
	ck_assert_int_eq(eager("<Discovery><Peers><Peer address=\"10.0.0.2\"/></Peers></Discovery>"),
			 1);
	ck_assert_int_eq(eager("<General><AllowMulticast>false</AllowMulticast></General>"), 1);
	ck_assert_int_eq(eager("<AllowMulticast>ssm</AllowMulticast>"), 1);
	ck_assert_int_eq(eager("<AllowMulticast></AllowMulticast>"), 1);
	ck_assert_int_eq(eager("<AllowMulticast>spdp</AllowMulticast><AllowMulticast>false"
			       "</AllowMulticast>"),
			 1);
	ck_assert_int_eq(eager("<Discovery><SPDPMulticastAddress>239.255.0.9"
			       "</SPDPMulticastAddress></Discovery>"),
			 1);
	ck_assert_int_eq(eager("<Discovery><Ports><Base>9000</Base></Ports></Discovery>"), 1);
	ck_assert_int_eq(eager("<General><Transport>udp6</Transport></General>"), 1);
	ck_assert_int_eq(eager("<General><Transport>tcp</Transport></General>"), 1);
	/* unterminated: the socket cannot know what it says */
	ck_assert_int_eq(eager("<AllowMulticast"), 1);
}
END_TEST

static char *cfg_file(const char *xml)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/check_bridge_wake.XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
	close(fd);
	return path;
}

START_TEST(uri_files)
{
	char why[300], uri[200];
	ck_assert_int_eq(bridge_wake_uri_eager(NULL, why, sizeof(why)), 0);
	ck_assert_int_eq(bridge_wake_uri_eager("", why, sizeof(why)), 0);
	char *plain = strdup(cfg_file("<CycloneDDS><Domain><General><Interfaces/></General>"
				      "</Domain></CycloneDDS>"));
	snprintf(uri, sizeof(uri), "file://%s", plain);
	ck_assert_int_eq(bridge_wake_uri_eager(uri, why, sizeof(why)), 0);
	/* a peer in the second of two files */
	char *peers = strdup(cfg_file("<Discovery><Peers><Peer address=\"h2\"/></Peers>"
				      "</Discovery>"));
	snprintf(uri, sizeof(uri), "file://%s,file://%s", plain, peers);
	ck_assert_int_eq(bridge_wake_uri_eager(uri, why, sizeof(why)), 1);
	ck_assert_ptr_nonnull(strstr(why, "peers"));
	/* an inline fragment after a file */
	snprintf(uri, sizeof(uri), "file://%s,<AllowMulticast>false</AllowMulticast>", plain);
	ck_assert_int_eq(bridge_wake_uri_eager(uri, why, sizeof(why)), 1);
	/* a file that cannot be read: eager, and why names it */
	ck_assert_int_eq(bridge_wake_uri_eager("file:///nonexistent/cyclone.xml", why,
					       sizeof(why)),
			 1);
	ck_assert_ptr_nonnull(strstr(why, "/nonexistent/cyclone.xml"));
	ck_assert_int_eq(bridge_wake_uri_eager("file://", why, sizeof(why)), 1);
	unlink(plain);
	unlink(peers);
	free(plain);
	free(peers);
}
END_TEST

START_TEST(uri_file_too_big)
{
	char why[300], uri[200];
	char *big = malloc(BRIDGE_WAKE_CFG_MAX + 2);
	memset(big, ' ', BRIDGE_WAKE_CFG_MAX + 1);
	big[BRIDGE_WAKE_CFG_MAX + 1] = '\0';
	char *path = strdup(cfg_file(big));
	snprintf(uri, sizeof(uri), "file://%s", path);
	ck_assert_int_eq(bridge_wake_uri_eager(uri, why, sizeof(why)), 1);
	ck_assert_ptr_nonnull(strstr(why, "over"));
	unlink(path);
	free(path);
	free(big);
}
END_TEST

static struct bridge b;

START_TEST(held_in_order)
{
	memset(&b, 0, sizeof(b));
	char sel[] = "/talker";
	struct caret_filter_lists f = { { 0 } };
	f.list[CARET_FILTER_SELECT_NODES] = sel;
	ck_assert_int_eq(bridge_pending_add(&b, BRIDGE_P_RELAY, 7, &f, "s1", "net://r", false, 100),
			 0);
	sel[1] = 'X'; /* the held one is a copy */
	ck_assert_int_eq(bridge_pending_add(&b, BRIDGE_P_START, 9, NULL, NULL, NULL, false, 200), 0);
	for (int i = 2; i < BRIDGE_PENDING; i++)
		ck_assert_int_eq(bridge_pending_add(&b, BRIDGE_P_END, 0, NULL, NULL, NULL, false, 300),
				 0);
	ck_assert_int_eq(bridge_pending_add(&b, BRIDGE_P_END, 0, NULL, NULL, NULL, false, 300),
			 -EBUSY);
	struct bridge_pending *p = bridge_pending_first(&b, 400);
	ck_assert_int_eq(p->kind, BRIDGE_P_RELAY);
	ck_assert_str_eq(p->session, "s1");
	ck_assert_str_eq(p->url, "net://r");
	struct caret_filter_lists out;
	bridge_pending_filter(p, &out);
	ck_assert_str_eq(out.list[CARET_FILTER_SELECT_NODES], "/talker");
	ck_assert_ptr_null(out.list[CARET_FILTER_IGNORE_NODES]);
	bridge_pending_pop(&b);
	p = bridge_pending_first(&b, 400);
	ck_assert_int_eq(p->kind, BRIDGE_P_START);
	ck_assert_uint_eq(p->frequency, 9);
	bridge_pending_pop(&b);
	ck_assert_int_eq(bridge_pending_first(&b, 400)->kind, BRIDGE_P_END);
	bridge_pending_clear(&b);
	ck_assert_ptr_null(bridge_pending_first(&b, 400));
}
END_TEST

START_TEST(held_expire)
{
	memset(&b, 0, sizeof(b));
	ck_assert_int_eq(bridge_pending_add(&b, BRIDGE_P_START, 1, NULL, NULL, NULL, false, 0), 0);
	ck_assert_int_eq(bridge_pending_add(&b, BRIDGE_P_END, 0, NULL, NULL, NULL, false,
					    BRIDGE_PENDING_TTL_NS),
			 0);
	/* the first one is over its time, the second not yet */
	struct bridge_pending *p = bridge_pending_first(&b, BRIDGE_PENDING_TTL_NS + 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->kind, BRIDGE_P_END);
	ck_assert_ptr_null(bridge_pending_first(&b, 3 * BRIDGE_PENDING_TTL_NS));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bridge_wake");
	unit_case(s, "what wakes a bridge asleep", rtps_header, configurations, uri_files,
		  uri_file_too_big);
	unit_case(s, "broadcasts held while it wakes", held_in_order, held_expire);
	return unit_run(s);
}
