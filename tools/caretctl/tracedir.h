/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where traces go by default, by the rule of ros2_tracing so `caretctl
 * record` and `ros2 trace` put them side by side: $ROS_TRACE_DIR, else
 * $ROS_HOME/tracing, else ~/.ros/tracing (empty variables count as unset).
 * The daemon runs elsewhere, so the client sends an absolute path.
 */
#ifndef CARETCTL_TRACEDIR_H
#define CARETCTL_TRACEDIR_H

#include <stddef.h>

/* The rule itself, from explicit values (NULL = unset). 0 or -ENAMETOOLONG. */
int cli_default_trace_dir(const char *ros_trace_dir, const char *ros_home,
			  char *out, size_t len);

/*
 * Expands a leading "~" or "~/" with home, makes a relative path absolute
 * from cwd and normalizes it as os.path.abspath does ("//", ".", "..").
 * 0, -EINVAL (home or cwd missing or not absolute), -ENAMETOOLONG.
 */
int cli_absolute_path(const char *path, const char *cwd, const char *home,
		      char *out, size_t len);

/* given (or the default when NULL), made absolute from the environment. */
int cli_trace_dir(const char *given, char *out, size_t len);

#endif
