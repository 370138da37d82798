/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/lttng/lttng_helper.h"
#include "tests/unit/helper_fixture.h"

_Noreturn void helper_serve(helper_reply_fn *reply)
{
	static char msg[LTTNG_START_MSG_MAX];
	static struct lttng_start_req req;
	for (;;) {
		ssize_t n = recv(LTTNG_HELPER_FD, msg, sizeof(msg), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		if (n == 1)
			continue;
		struct lttng_start_result res = { .r = -EIO };
		bool start = false;
		if (msg[0] == LTTNG_START_DROP)
			res.r = 0;
		else
			start = lttng_start_msg_unpack(msg, (size_t)n, &req) == 0;
		reply(start ? &req : NULL, &res);
		send(LTTNG_HELPER_FD, &res, sizeof(res), MSG_NOSIGNAL);
	}
}
