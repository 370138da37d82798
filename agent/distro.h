/* SPDX-License-Identifier: Apache-2.0 */
/* Which ROS 2 distribution is loaded, from the symbols it exports. */
#ifndef CARET_AGENT_DISTRO_H
#define CARET_AGENT_DISTRO_H

#include <stdbool.h>

enum caret_family {
	CARET_FAMILY_UNKNOWN = 0,
	CARET_FAMILY_HUMBLE, /* Humble and older: no ros_trace_enabled_* */
	CARET_FAMILY_IRON,
	CARET_FAMILY_JAZZY,  /* Jazzy and later */
};

/* How the family was decided. */
enum caret_distro_source {
	CARET_DISTRO_NONE = 0,  /* nothing loaded told, and no usable hint */
	CARET_DISTRO_HINT,      /* symbols narrowed it, $ROS_DISTRO chose */
	CARET_DISTRO_SYMBOLS,   /* symbols alone */
};

/* What caret_init says when neither symbols nor $ROS_DISTRO decide: the
 * newest LTS, which caret_trace's main branch targets. */
#define CARET_DISTRO_DEFAULT "jazzy"

struct caret_distro {
	enum caret_family family;
	enum caret_distro_source source;
	/* Arguments of ros_trace_rmw_publish: 1 (message) before Jazzy, 3
	 * (publisher, message, timestamp) since; 0 when not known for sure. */
	int rmw_publish_args;
	/* Emitted in caret_init: $ROS_DISTRO when it agrees with the family
	 * (e.g. "rolling" for Jazzy+), else the family's name, else $ROS_DISTRO,
	 * else CARET_DISTRO_DEFAULT (never ""). */
	char name[24];
	/* name is CARET_DISTRO_DEFAULT because nothing decided. */
	bool defaulted;
};

/* Decides from `has(sym)` (a symbol defined by a loaded library other than
 * the agent) and the $ROS_DISTRO hint (may be NULL). */
void caret_distro_detect(bool (*has)(const char *sym), const char *hint,
			 struct caret_distro *out);

const char *caret_family_name(enum caret_family f);

#endif
