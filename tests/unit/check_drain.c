/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/lttng_drain: the consumer's packet index as the feedback pacing
 * reads it, on index files laid out as lttng-tools writes them (CTF index
 * 1.1, big-endian, sizes in bits), plus the hostile cases: a half-written
 * entry, a bad magic, a symbolic link, another channel's streams. The
 * horizons and ratios of the pacing: check_drain_horizon.c.
 */
#include <check.h>
#include <errno.h>
#include <time.h>
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/lttng/lttng_drain.h"
#include "tests/unit/drain_fixture.h"
#include "tests/unit/unit.h"

START_TEST(reads_last_packets)
{
	new_dir("");
	struct lttng_drain d;
	ck_assert_int_lt(lttng_drain_read(dir, "caret", &d), 0); /* no ust/ yet */
	char ix[200];
	snprintf(ix, sizeof(ix), "%s", index_dir(dir, 0));
	ck_assert_int_eq(lttng_drain_read(dir, "caret", &d), 0);
	ck_assert_int_eq(d.streams, 0);
	ck_assert_int_eq(d.horizon_ns, -1);
	stream(ix, "caret_0.idx", 0xC1F1DCC1, 3, 5000000, 7, 40); /* a half-written 4th entry */
	stream(ix, "caret_1.idx", 0xC1F1DCC1, 1, 9000000, 0, 0);
	stream(ix, "caret_2.idx", 0xC1F1DCC1, 0, 0, 0, 0); /* a stream with no packet yet */
	stream(ix, "other_0.idx", 0xC1F1DCC1, 9, 99000000, 99, 0); /* another channel */
	stream(ix, "caret_3.idx", 0xdeadbeef, 5, 98000000, 55, 0); /* not an index */
	char target[256], p[256];
	snprintf(target, sizeof(target), "%s/other_0.idx", ix);
	snprintf(p, sizeof(p), "%s/caret_4.idx", ix);
	ck_assert_int_eq(symlink(target, p), 0); /* never followed */
	/* a second uid's buffers count too */
	stream(index_dir(dir, 1000), "caret_0.idx", 0xC1F1DCC1, 2, 1000, 1, 0);

	ck_assert_int_eq(lttng_drain_read(dir, "caret", &d), 0);
	ck_assert_int_eq(d.streams, 3);
	ck_assert_uint_eq(d.chunk, 0); /* <trace>/ust: not a rotating session's */
	ck_assert_int_eq(d.files, 4); /* and caret_2, which may hold a partial packet */
	ck_assert_int_eq(d.ignored, 1); /* the bad magic; a stream with no packet yet is no lie */
	ck_assert_int_eq(d.horizon_ns, 9000000);
	ck_assert_uint_eq(d.discarded, 8);
	ck_assert_uint_eq(d.bytes, 3 * 65536 + 65536 + 2 * 65536);
	remove_dirs("");
}
END_TEST

/* A rotating session (issue 23) writes its current chunk in
 * <trace>/<begin>-<N>/ust: the newest chunk (highest N) is read, an older
 * one left behind or a look-alike name is not. */
START_TEST(reads_current_chunk)
{
	new_dir("-c");
	static const char *const chunks[] = { "20261127T022613+0000-3", "20261127T022614+0000-12",
					      "20261127T02261X+0000-99" };
	static const uint64_t ts[] = { 1000000, 7000000, 99000000 };
	for (int i = 0; i < 3; i++) {
		char root[200];
		snprintf(root, sizeof(root), "%s/%s", dir, chunks[i]);
		ck_assert_int_eq(mkdir(root, 0755), 0);
		stream(index_dir(root, 0), "caret_0.idx", 0xC1F1DCC1, 1, ts[i], 0, 0);
	}
	char p[200];
	snprintf(p, sizeof(p), "%s/archives", dir); /* archived chunks are not written any more */
	ck_assert_int_eq(mkdir(p, 0755), 0);
	struct lttng_drain d;
	ck_assert_int_eq(lttng_drain_read(dir, "caret", &d), 0);
	ck_assert_int_eq(d.streams, 1);
	ck_assert_int_eq(d.horizon_ns, 7000000);
	/* which chunk: the pacer's calibration (lttng_drain_ratio) compares
	 * bytes within one chunk only */
	ck_assert_uint_eq(d.chunk, 12);
	remove_dirs("");
}
END_TEST

/* An opening packet (what LTTng writes first in every stream of a new
 * chunk: no event, begin = end) carrying the stream's discarded count so
 * far, then npackets packets ending at ts0 + i * 1000 with discarded
 * counts d0 + i. */
static void chunk_stream(const char *ix, const char *name, uint64_t open_ts, uint64_t base,
			 int npackets, uint64_t ts0, uint64_t d0)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", ix, name);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	put32(f, 0xC1F1DCC1);
	put32(f, 1);
	put32(f, 1);
	put32(f, 72);
	for (int i = -1; i < npackets; i++) {
		uint64_t end = i < 0 ? open_ts : ts0 + (uint64_t)i * 1000;
		put64(f, (uint64_t)(i + 1) * 4096);
		put64(f, 4096 * 8);
		put64(f, (i < 0 ? 84 : 4000) * 8);
		put64(f, i < 0 ? open_ts : end - 500);
		put64(f, end);
		put64(f, i < 0 ? base : d0 + (uint64_t)i);
		put64(f, 0);
		put64(f, 1);
		put64(f, (uint64_t)(i + 1));
	}
	fclose(f);
}

/* What lttng-sessiond 2.13.9 writes while a session rotates (seen with
 * `lttng rotate` and `ls -R` on a writing session): the first chunk is
 * <trace>/ust until the first rotation, which moves it to
 * <trace>/.tmp_old_chunk and then archives/<begin>-<end>-0; every later
 * chunk is written in <trace>/<begin>-<N>, created with its streams' index
 * files at the rotation's start, and moved to archives/<begin>-<end>-<N>
 * when the next rotation completes. The pacer opens the trace directory
 * once and reads it every tick: every read must find the chunk being
 * written (the second one found nothing, the chunk's name being looked
 * for through a descriptor whose offset the first read left at the end
 * of the directory, and the replay into the chunk went unpaced). */
START_TEST(reads_chunk_every_tick_during_rotation)
{
	new_dir("-r");
	char p[256], ix[200], old[200];
	/* the first rotation is under way: the old chunk moved aside */
	snprintf(p, sizeof(p), "%s/.tmp_old_chunk", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(old, sizeof(old), "%s", index_dir(p, 0));
	stream(old, "caret_0.idx", 0xC1F1DCC1, 40, 1000000, 5, 0);
	snprintf(p, sizeof(p), "%s/20261127T053620+0000-1", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(ix, sizeof(ix), "%s", index_dir(p, 0));
	chunk_stream(ix, "caret_0.idx", 2000000, 5, 0, 0, 0);
	chunk_stream(ix, "caret_1.idx", 2000100, 0, 0, 0, 0);

	int top = lttng_drain_open(dir, 0, 0, 0);
	ck_assert_int_ge(top, 0);
	struct lttng_drain d;
	int64_t now = 1000000000;
	ck_assert_int_eq(lttng_drain_read_at(top, "caret", 0, now, &d), 0);
	ck_assert_int_eq(d.streams, 2);
	ck_assert_int_eq(d.horizon_ns, 2000100);
	/* the replay's packets land in the new chunk: the next tick's read
	 * through the same descriptor sees them */
	chunk_stream(ix, "caret_0.idx", 2000000, 5, 3, 3000000, 5);
	ck_assert_int_eq(lttng_drain_read_at(top, "caret", 0, now, &d), 0);
	ck_assert_int_eq(d.streams, 2);
	ck_assert_int_eq(d.horizon_ns, 3002000);
	ck_assert_int_eq(lttng_drain_horizon(&d, 2500000, 200000000), 3002000);

	/* the rotation completed: the old chunk is an archive */
	char arch[200];
	snprintf(arch, sizeof(arch), "%s/archives", dir);
	ck_assert_int_eq(mkdir(arch, 0755), 0);
	snprintf(p, sizeof(p), "%s/.tmp_old_chunk", dir);
	snprintf(arch, sizeof(arch), "%s/archives/20261127T053619+0000-20261127T053620+0000-0",
		 dir);
	ck_assert_int_eq(rename(p, arch), 0);
	for (int tick = 0; tick < 3; tick++) {
		chunk_stream(ix, "caret_1.idx", 2000100, 0, tick + 1, 4000000, 0);
		ck_assert_int_eq(lttng_drain_read_at(top, "caret", 0, now, &d), 0);
		ck_assert_int_eq(d.streams, 2);
		ck_assert_int_eq(d.horizon_ns, 4000000 + tick * 1000);
	}

	/* the second rotation starts: chunk 2 is created while chunk 1 is
	 * still in place; events go to chunk 2, which is read */
	snprintf(p, sizeof(p), "%s/20261127T053623+0000-2", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	char ix2[200];
	snprintf(ix2, sizeof(ix2), "%s", index_dir(p, 0));
	chunk_stream(ix2, "caret_0.idx", 5000000, 7, 2, 6000000, 7);
	ck_assert_int_eq(lttng_drain_read_at(top, "caret", 0, now, &d), 0);
	ck_assert_int_eq(d.streams, 1);
	ck_assert_int_eq(d.horizon_ns, 6001000);
	ck_assert_int_eq(lttng_drain_read_at(top, "caret", 0, now, &d), 0);
	ck_assert_int_eq(d.horizon_ns, 6001000);
	close(top);
	remove_dirs("");
}
END_TEST

/* Between the first rotation's start and the old chunk's move aside, the
 * root's ust/ (the first chunk, no longer written) and the new chunk's
 * directory may both be there: the new chunk is the one written. */
START_TEST(chunk_before_stale_root)
{
	new_dir("-s");
	stream(index_dir(dir, 0), "caret_0.idx", 0xC1F1DCC1, 4, 1000000, 0, 0);
	char p[200];
	snprintf(p, sizeof(p), "%s/20261127T053620+0000-1", dir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	chunk_stream(index_dir(p, 0), "caret_0.idx", 2000000, 0, 2, 3000000, 0);
	struct lttng_drain d;
	ck_assert_int_eq(lttng_drain_read(dir, "caret", &d), 0);
	ck_assert_int_eq(d.streams, 1);
	ck_assert_int_eq(d.horizon_ns, 3001000);
	remove_dirs("");
}
END_TEST

/* An archived chunk's discards (the chunks' verdicts): LTTng's counts are
 * each stream's total since the session began, and every stream of a
 * later chunk opens with an empty packet carrying the total so far. The
 * first chunk's streams (and a ring buffer made during a chunk) count
 * from 0. Every channel counts. */
START_TEST(archived_chunk_discards)
{
	new_dir("-a");
	char p[256], arch[200];
	snprintf(arch, sizeof(arch), "%s/archives", dir);
	ck_assert_int_eq(mkdir(arch, 0755), 0);
	/* chunk 0: 3 discarded at the end of caret_0, none elsewhere */
	snprintf(p, sizeof(p), "%s/20261127T053619+0000-20261127T053620+0000-0", arch);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	const char *ix = index_dir(p, 0);
	stream(ix, "caret_0.idx", 0xC1F1DCC1, 4, 1000000, 3, 0);
	stream(ix, "caret_1.idx", 0xC1F1DCC1, 4, 1000000, 0, 0);
	/* chunk 1: caret_0 opens at 3 and stays there, caret_1 opens at 0
	 * and discards 4 (its total 0 + 4 at the last packet); another
	 * channel's stream discards 2 after opening at 10 */
	snprintf(p, sizeof(p), "%s/20261127T053620+0000-20261127T053623+0000-1", arch);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ix = index_dir(p, 0);
	chunk_stream(ix, "caret_0.idx", 2000000, 3, 1, 3000000, 3);
	chunk_stream(ix, "caret_1.idx", 2000000, 0, 5, 3000000, 0); /* 0, 1, .. 4 */
	chunk_stream(ix, "other_0.idx", 2000000, 10, 3, 3000000, 10); /* 10, 11, 12 */
	/* chunk 2: nothing discarded, the totals carried over */
	snprintf(p, sizeof(p), "%s/20261127T053623+0000-20261127T053626+0000-2", arch);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ix = index_dir(p, 0);
	chunk_stream(ix, "caret_0.idx", 4000000, 3, 1, 5000000, 3);
	chunk_stream(ix, "caret_1.idx", 4000000, 4, 1, 5000000, 4);
	chunk_stream(ix, "other_0.idx", 4000000, 12, 0, 0, 0);

	int top = lttng_drain_open(dir, 0, 0, 0);
	ck_assert_int_ge(top, 0);
	struct lttng_drain d;
	ck_assert_int_eq(lttng_drain_read_chunk(top, "20261127T053619+0000-20261127T053620+0000-0",
						0, &d), 0);
	ck_assert_int_eq(d.streams, 2);
	ck_assert_uint_eq(d.chunk_discarded, 3);
	ck_assert_int_eq(lttng_drain_read_chunk(top, "20261127T053620+0000-20261127T053623+0000-1",
						0, &d), 0);
	ck_assert_int_eq(d.streams, 3);
	ck_assert_uint_eq(d.chunk_discarded, 4 + 2);
	ck_assert_uint_eq(d.discarded, 3 + 4 + 12);
	ck_assert_int_eq(lttng_drain_read_chunk(top, "20261127T053623+0000-20261127T053626+0000-2",
						0, &d), 0);
	ck_assert_int_eq(d.streams, 3);
	ck_assert_uint_eq(d.chunk_discarded, 0);
	/* a name is one entry of archives/, never a path or a link */
	ck_assert_int_eq(lttng_drain_read_chunk(top, "nope", 0, &d), -ENOENT);
	ck_assert_int_eq(lttng_drain_read_chunk(top, "../archives/x", 0, &d), -EINVAL);
	ck_assert_int_eq(lttng_drain_read_chunk(top, "..", 0, &d), -EINVAL);
	snprintf(p, sizeof(p), "%s/link", arch);
	ck_assert_int_eq(symlink("20261127T053620+0000-20261127T053623+0000-1", p), 0);
	ck_assert_int_eq(lttng_drain_read_chunk(top, "link", 0, &d), -ENOTDIR); /* not followed */
	/* another owner's chunk is not read */
	ck_assert_int_eq(lttng_drain_read_chunk(top, "20261127T053620+0000-20261127T053623+0000-1",
						4242, &d), -EPERM);
	close(top);
	remove_dirs("");
}
END_TEST

/* The recording's owner writes what they like in the trace: links,
 * packets from the future, absurd counts, other owners' files, floods
 * of entries. None of it is believed, followed, or costs more than the
 * bounds. */
START_TEST(hostile_trace)
{
	new_dir("h");
	char p[256], ix[200];
	snprintf(ix, sizeof(ix), "%s", index_dir(dir, 0));
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	stream(ix, "caret_0.idx", 0xC1F1DCC1, 2, 1000000, 3, 0); /* honest */
	stream(ix, "caret_1.idx", 0xC1F1DCC1, 2, (uint64_t)now + 3600000000000ULL, 0, 0); /* the future */
	stream(ix, "caret_2.idx", 0xC1F1DCC1, 2, 2000000, UINT64_MAX - 5, 0); /* absurd discards */
	stream(ix, "caret_3.idx", 0xC1F1DCC1, 2, 3000000, 9, 0);
	snprintf(p, sizeof(p), "%s/caret_3.idx", ix);
	ck_assert_int_eq(chown(p, 4242, 4242), 0); /* not the owner's */
	int top = lttng_drain_open(dir, 0, 0, 0);
	ck_assert_int_ge(top, 0);
	struct lttng_drain d;
	ck_assert_int_eq(lttng_drain_read_at(top, "caret", 0, now, &d), 0);
	ck_assert_int_eq(d.streams, 1);
	ck_assert_int_eq(d.ignored, 3);
	ck_assert_int_eq(d.horizon_ns, 1000000 + 1000);
	ck_assert_uint_eq(d.discarded, 3);
	ck_assert(!d.truncated);
	/* the whole tree must be the owner's */
	ck_assert_int_eq(lttng_drain_read_at(top, "caret", 4242, now, &d), -EPERM);

	/* the directory is the one created for the recording: its path
	 * swapped for a link, or for another directory, is not read */
	struct stat st;
	ck_assert_int_eq(fstat(top, &st), 0);
	ck_assert_int_ge(lttng_drain_open(dir, st.st_dev, st.st_ino, 0), 0);
	char moved[96], other[96];
	snprintf(moved, sizeof(moved), "%s.real", dir);
	snprintf(other, sizeof(other), "%s.other", dir);
	ck_assert_int_eq(mkdir(other, 0755), 0);
	ck_assert_int_eq(rename(dir, moved), 0);
	ck_assert_int_eq(symlink(moved, dir), 0);
	ck_assert_int_lt(lttng_drain_open(dir, st.st_dev, st.st_ino, 0), 0); /* ENOTDIR */
	ck_assert_int_eq(unlink(dir), 0);
	ck_assert_int_eq(rename(other, dir), 0);
	ck_assert_int_eq(lttng_drain_open(dir, st.st_dev, st.st_ino, 0), -ESTALE);
	ck_assert_int_eq(lttng_drain_open(dir, 0, 0, 4242), -EPERM);
	/* the descriptor opened once still reads the recording's own */
	ck_assert_int_eq(lttng_drain_read_at(top, "caret", 0, now, &d), 0);
	ck_assert_int_eq(d.streams, 1);

	/* ust/ swapped for a link inside the recording's directory */
	char ust[128], ust2[128];
	snprintf(ust, sizeof(ust), "%s/ust", moved);
	snprintf(ust2, sizeof(ust2), "%s/ust.real", moved);
	ck_assert_int_eq(rename(ust, ust2), 0);
	ck_assert_int_eq(symlink(ust2, ust), 0);
	ck_assert_int_eq(lttng_drain_read_at(top, "caret", 0, now, &d), -ENOTDIR); /* not followed */
	ck_assert_int_eq(unlink(ust), 0);
	ck_assert_int_eq(rename(ust2, ust), 0);

	/* a flood of index files and entries: the read stops at its bounds */
	snprintf(ix, sizeof(ix), "%s/ust/uid/0/64-bit/index", moved);
	for (int i = 10; i < 10 + 2 * LTTNG_DRAIN_MAX_ENTRIES; i++) {
		snprintf(p, sizeof(p), "%s/caret_%d.idx", ix, i);
		if (i < 10 + LTTNG_DRAIN_MAX_FILES + 20)
			index_file(p, 0xC1F1DCC1, 1, 1000, 0, 0);
		else
			close(open(p, O_CREAT | O_WRONLY, 0644));
	}
	ck_assert_int_eq(lttng_drain_read_at(top, "caret", 0, now, &d), 0);
	ck_assert(d.truncated);
	ck_assert_int_le(d.streams + d.ignored, LTTNG_DRAIN_MAX_FILES);
	close(top);
	remove_dirs(moved);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("drain");
	unit_case(s, "index", reads_last_packets, reads_current_chunk, hostile_trace,
		  reads_chunk_every_tick_during_rotation, chunk_before_stale_root,
		  archived_chunk_discards);
	return unit_run(s);
}
