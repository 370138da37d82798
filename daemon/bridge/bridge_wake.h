/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bridge asleep (issue 24): CycloneDDS is most of caretd's resident
 * memory (Debian's libddsc maps OpenSSL, iceoryx and libstdc++ with it),
 * and nothing can reach this host over DDS while no other participant is
 * in the domain. So caretd listens, with a plain UDP socket, on the port
 * and group where every DDS participant of the domain announces itself
 * (SPDP, DDSI-RTPS 2.x section 9.6.1: port 7400 + 250 x domain, group
 * 239.255.0.1), and loads DDS when the first RTPS packet comes there, or
 * when a command of this host needs the other hosts.
 *
 * Only what the socket cannot see keeps DDS loaded from the start: a
 * configuration (CYCLONEDDS_URI) that lists peers (unicast discovery),
 * turns SPDP multicast off, or moves the port or the group, and a host
 * with no multicast interface.
 *
 * A datagram is never parsed past the 4-byte RTPS magic and the version:
 * the worst a forged one can do is load DDS, which an eager caretd does
 * anyway.
 */
#ifndef CARETD_BRIDGE_WAKE_H
#define CARETD_BRIDGE_WAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

/* DDSI-RTPS 2.x, 9.6.1.1: the SPDP multicast port is PB + DG x domain + d0 */
#define BRIDGE_WAKE_PB 7400
#define BRIDGE_WAKE_DG 250
#define BRIDGE_WAKE_GROUP "239.255.0.1"
/* at most this many configuration files of CYCLONEDDS_URI are read, each
 * up to BRIDGE_WAKE_CFG_MAX bytes */
#define BRIDGE_WAKE_CFG_FILES 8
#define BRIDGE_WAKE_CFG_MAX (256 * 1024)
#define BRIDGE_WAKE_MAX_IF 64

typedef void (*bridge_wake_fn)(void *arg, const char *why);

struct bridge_wake {
	int fd;
	sd_event_source *src;
	int port;
	unsigned joined;   /* interfaces the group is joined on */
	int ifs[BRIDGE_WAKE_MAX_IF]; /* their indexes */
	uint64_t ignored;  /* datagrams that were not RTPS */
	bridge_wake_fn fn;
	void *arg;
};

/* Whether a datagram starts as an RTPS message (protocol version 2). */
bool bridge_wake_is_rtps(const void *buf, size_t n);

/*
 * Whether the configuration text (XML, any case) keeps SPDP off the
 * default multicast port and group, so that the socket would not hear
 * the domain: 1 with why filled, 0 if not.
 */
int bridge_wake_cfg_eager(const char *xml, char *why, size_t len);

/*
 * The same for CYCLONEDDS_URI as CycloneDDS reads it: comma-separated XML
 * fragments and file:// names (each file read; one that cannot be read
 * keeps DDS eager, as the socket cannot know what it says).
 */
int bridge_wake_uri_eager(const char *uri, char *why, size_t len);

/*
 * Listens for domain's SPDP on every multicast interface (0; a negative
 * errno with why filled: no socket, no port, no interface). fn is called
 * once, from the event loop, at the first RTPS datagram; the listener is
 * closed before it.
 */
int bridge_wake_open(struct bridge_wake *w, sd_event *ev, int domain, bridge_wake_fn fn,
		     void *arg, char *why, size_t len);
/* Joins the group on interfaces that came up since (the number joined). */
unsigned bridge_wake_scan(struct bridge_wake *w);
void bridge_wake_close(struct bridge_wake *w);

#endif
