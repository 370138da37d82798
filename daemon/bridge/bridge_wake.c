/* SPDX-License-Identifier: Apache-2.0 */
/* The bridge's passive SPDP listener: see bridge_wake.h for why. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/bridge/bridge_wake.h"
#include "util/caret_cleanup.h"

bool bridge_wake_is_rtps(const void *buf, size_t n)
{
	const unsigned char *p = buf;
	/* the header: "RTPS", version major 2, minor, vendor, GUID prefix */
	return n >= 20 && memcmp(p, "RTPS", 4) == 0 && p[4] == 2;
}

/* The first occurrence of needle in hay, ignoring case. */
static const char *find_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return hay;
	return NULL;
}

/* Whether the value of the element starting at tag (up to its '<') names
 * one of the words, ignoring case. */
static bool value_has(const char *tag, const char *const *words)
{
	const char *v = strchr(tag, '>');
	if (!v)
		return false;
	v++;
	size_t n = strcspn(v, "<");
	for (; *words; words++) {
		size_t w = strlen(*words);
		for (size_t i = 0; i + w <= n; i++)
			if (strncasecmp(v + i, *words, w) == 0)
				return true;
	}
	return false;
}

int bridge_wake_cfg_eager(const char *xml, char *why, size_t len)
{
	/* CycloneDDS 0.10's options that take SPDP off 239.255.0.1:7400+250d
	 * or off multicast, or that add discovery the socket cannot hear */
	static const struct { const char *tag, *why; } moves[] = {
		{ "<peer", "lists peers (unicast discovery)" },
		{ "<spdpmulticastaddress", "moves SPDP to another multicast address" },
		{ "<ports", "moves the discovery ports" },
		{ "<portbase", "moves the discovery ports" },
		{ "<domaingain", "moves the discovery ports" },
		{ "<multicastmetaoffset", "moves the discovery ports" },
		{ "udp6", "uses IPv6" },
		{ "tcp", "uses TCP" },
		{ "<defaultmulticastaddress", "moves the multicast address" },
	};
	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++)
		if (find_ci(xml, moves[i].tag)) {
			snprintf(why, len, "CYCLONEDDS_URI %s", moves[i].why);
			return 1;
		}
	/* AllowMulticast: SPDP goes to the group with true, default, spdp
	 * or asm in it; false or ssm alone do not */
	static const char *const spdp[] = { "true", "default", "spdp", "asm", NULL };
	for (const char *t = xml; (t = find_ci(t, "<allowmulticast")); t++)
		if (!value_has(t, spdp)) {
			snprintf(why, len, "CYCLONEDDS_URI turns SPDP multicast off (AllowMulticast)");
			return 1;
		}
	return 0;
}

/* A configuration file, whole (NULL with why filled). */
static char *read_cfg(const char *path, char *why, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, len, "cannot read CYCLONEDDS_URI's %.200s: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = malloc(BRIDGE_WAKE_CFG_MAX + 1);
	if (!buf) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	size_t got = 0;
	for (;;) {
		ssize_t r = read(fd, buf + got, BRIDGE_WAKE_CFG_MAX - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, len, "cannot read CYCLONEDDS_URI's %.200s: %s", path,
				 strerror(errno));
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got == BRIDGE_WAKE_CFG_MAX) {
			snprintf(why, len, "CYCLONEDDS_URI's %.200s is over %d bytes", path,
				 BRIDGE_WAKE_CFG_MAX);
			free(buf);
			return NULL;
		}
	}
	buf[got] = '\0';
	return buf;
}

int bridge_wake_uri_eager(const char *uri, char *why, size_t len)
{
	if (!uri || !*uri)
		return 0;
	if (bridge_wake_cfg_eager(uri, why, len))
		return 1;
	/* file names: "file://PATH" up to the next comma, as CycloneDDS
	 * splits them (an XML fragment is checked whole above) */
	int files = 0;
	for (const char *p = uri; (p = find_ci(p, "file://")); files++) {
		if (files == BRIDGE_WAKE_CFG_FILES) {
			snprintf(why, len, "CYCLONEDDS_URI names over %d files", BRIDGE_WAKE_CFG_FILES);
			return 1;
		}
		p += strlen("file://");
		size_t n = strcspn(p, ",");
		char path[4096];
		if (n == 0 || n >= sizeof(path)) {
			snprintf(why, len, "CYCLONEDDS_URI has a file name that is empty or too long");
			return 1;
		}
		memcpy(path, p, n);
		path[n] = '\0';
		char *xml = read_cfg(path, why, len);
		if (!xml)
			return 1;
		int r = bridge_wake_cfg_eager(xml, why, len);
		free(xml);
		if (r)
			return 1;
	}
	return 0;
}


unsigned bridge_wake_scan(struct bridge_wake *w)
{
	if (w->fd < 0)
		return w->joined;
	struct ifaddrs *ifs = NULL;
	if (getifaddrs(&ifs) < 0)
		return w->joined;
	for (struct ifaddrs *i = ifs; i && w->joined < BRIDGE_WAKE_MAX_IF; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
		    (i->ifa_flags & (IFF_UP | IFF_MULTICAST)) != (IFF_UP | IFF_MULTICAST))
			continue;
		int idx = (int)if_nametoindex(i->ifa_name);
		/* a second join of one fails with EADDRINUSE: counted once */
		bool seen = false;
		for (unsigned k = 0; k < w->joined; k++)
			seen |= w->ifs[k] == idx;
		if (!idx || seen)
			continue;
		struct ip_mreqn m = { .imr_ifindex = idx };
		inet_pton(AF_INET, BRIDGE_WAKE_GROUP, &m.imr_multiaddr);
		if (setsockopt(w->fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)) == 0 ||
		    errno == EADDRINUSE)
			w->ifs[w->joined++] = idx;
	}
	freeifaddrs(ifs);
	return w->joined;
}

static int on_packet(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	(void)s, (void)revents;
	struct bridge_wake *w = arg;
	/* the header is all that is looked at: a longer datagram is cut */
	unsigned char buf[32];
	struct sockaddr_in from;
	for (int i = 0; i < 64; i++) {
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from,
				     &fl);
		if (n < 0)
			return 0;
		if (!bridge_wake_is_rtps(buf, (size_t)n)) {
			w->ignored++;
			continue;
		}
		char a[INET_ADDRSTRLEN] = "?", why[96];
		if (fl >= sizeof(from) && from.sin_family == AF_INET)
			inet_ntop(AF_INET, &from.sin_addr, a, sizeof(a));
		snprintf(why, sizeof(why), "a DDS participant announced itself from %s",
			 a);
		bridge_wake_fn fn = w->fn;
		void *fa = w->arg;
		bridge_wake_close(w);
		fn(fa, why);
		return 0;
	}
	return 0;
}

int bridge_wake_open(struct bridge_wake *w, sd_event *ev, int domain, bridge_wake_fn fn,
		     void *arg, char *why, size_t len)
{
	*w = (struct bridge_wake){ .fd = -1, .fn = fn, .arg = arg };
	w->port = BRIDGE_WAKE_PB + BRIDGE_WAKE_DG * domain;
	w->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (w->fd < 0) {
		int e = errno;
		snprintf(why, len, "no UDP socket: %s", strerror(e));
		return -e;
	}
	int one = 1;
	/* CycloneDDS and other DDS processes of this host bind the same port
	 * with SO_REUSEADDR: every one of them gets each multicast datagram */
	setsockopt(w->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(w->fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)w->port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int e = 0;
	if (bind(w->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		snprintf(why, len, "cannot listen on UDP port %d: %s", w->port, strerror(e));
	} else if (bridge_wake_scan(w) == 0) {
		e = ENODEV;
		snprintf(why, len, "no multicast interface to hear the domain's discovery on");
	} else {
		int r = sd_event_add_io(ev, &w->src, w->fd, EPOLLIN, on_packet, w);
		if (r < 0) {
			e = -r;
			snprintf(why, len, "cannot watch the socket: %s", strerror(e));
		}
	}
	if (e) {
		bridge_wake_close(w);
		return -e;
	}
	return 0;
}

void bridge_wake_close(struct bridge_wake *w)
{
	w->src = sd_event_source_disable_unref(w->src);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->joined = 0;
}
