/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl check`'s own parsing of what it did not write (B18): the
 * metadata preflight, run on a trace's metadata file before babeltrace2
 * sees it, and the decoder of the reader child's answer on the pipe. A
 * decoded report must encode back to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tools/caretctl/check_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];
	check_meta_buf(data, size, err, sizeof(err));
	struct check_report r;
	if (check_wire_decode(data, size, &r, err, sizeof(err)) == 0) {
		struct check_buf b = { 0 };
		check_wire_report(&b, &r);
		if (!b.err && (b.n != size || memcmp(b.p, data, size) != 0))
			abort(); /* the decoder accepted what the encoder cannot say */
		free(b.p);
		check_wire_free(&r);
	}
	return 0;
}
