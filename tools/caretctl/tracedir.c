/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracedir.h"

static const char *set(const char *v)
{
	return v && *v ? v : NULL;
}

int cli_default_trace_dir(const char *ros_trace_dir, const char *ros_home,
			  char *out, size_t len)
{
	int n;
	if (set(ros_trace_dir))
		n = snprintf(out, len, "%s", ros_trace_dir);
	else if (set(ros_home))
		n = snprintf(out, len, "%s/tracing", ros_home);
	else
		n = snprintf(out, len, "~/.ros/tracing");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Appends path's components to out (which holds an absolute path). */
static int append_normalized(char *out, size_t len, const char *path)
{
	size_t o = strlen(out);
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > 1 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
			out[o] = '\0';
		} else {
			size_t sep = o > 1 ? 1 : 0;
			if (o + sep + n + 1 > len)
				return -ENAMETOOLONG;
			if (sep)
				out[o++] = '/';
			memcpy(out + o, p, n);
			o += n;
			out[o] = '\0';
		}
		p = e;
	}
	return 0;
}

int cli_absolute_path(const char *path, const char *cwd, const char *home,
		      char *out, size_t len)
{
	const char *base = NULL, *rest = path;
	if (len < 2 || !path || !*path)
		return -EINVAL;
	if (path[0] == '~' && (path[1] == '\0' || path[1] == '/')) {
		if (!home)
			return -EINVAL;
		base = home;
		rest = path + 1;
	} else if (path[0] != '/') {
		base = cwd;
	}
	strcpy(out, "/");
	if (base) {
		if (base[0] != '/')
			return -EINVAL;
		int r = append_normalized(out, len, base);
		if (r < 0)
			return r;
	}
	return append_normalized(out, len, rest);
}

int cli_trace_dir(const char *given, char *out, size_t len)
{
	char raw[PATH_MAX], cwd[PATH_MAX];
	const char *home = set(getenv("HOME"));
	if (!home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!given) {
		int r = cli_default_trace_dir(getenv("ROS_TRACE_DIR"), getenv("ROS_HOME"), raw,
					      sizeof(raw));
		if (r < 0)
			return r;
		given = raw;
	}
	if (given[0] == '~' && !home)
		return -EINVAL;
	if (given[0] != '/' && given[0] != '~' && !getcwd(cwd, sizeof(cwd)))
		return -errno;
	return cli_absolute_path(given, given[0] == '/' || given[0] == '~' ? "/" : cwd, home,
				 out, len);
}
