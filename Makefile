# caretd top-level build. `make` builds everything into build/, `make check`
# runs unit + integration tests (also under ASan+UBSan), `make install`
# honours PREFIX and DESTDIR (and LIBDIR), `make deb` builds the Debian
# package (debian/) into build/deb, `make deps` installs the Debian packages.
PREFIX  ?= /usr/local
DESTDIR ?=
B       ?= build
LIBDIR  ?= $(PREFIX)/lib
SYSTEMD_UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR     ?= $(PREFIX)/lib/sysusers.d

CC      ?= cc
WARN     = -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -fPIC -D_GNU_SOURCE -I. -Iproto -I$(B)/gen -MMD -MP
LDFLAGS ?=
# From the environment only (dpkg-buildflags: -D_FORTIFY_SOURCE=2).
CPPFLAGS ?=

# Sanitizer build for tests: `make SAN=1` builds into build-san/.
ifeq ($(SAN),1)
B        = build-san
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

# Line coverage (gcov) for tools/coverage.sh: `make COV=1` builds into build-cov/,
# `make COV=1 SAN=1` into build-san-cov/ (issue 31: what the sanitizer stages must keep).
ifeq ($(COV),1)
B       := $(B)-cov
CFLAGS  += --coverage
LDFLAGS += --coverage
endif

# libFuzzer build for `make fuzz` (tests/fuzz/fuzz.mk): build-fuzz/, clang.
ifeq ($(FUZZ),1)
B        = build-fuzz
CC       = clang
CFLAGS  += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=fuzzer,address,undefined
endif

PKG_UST  = $(shell pkg-config --cflags --libs lttng-ust 2>/dev/null || echo -llttng-ust)
PKG_CTL  = $(shell pkg-config --cflags --libs lttng-ctl 2>/dev/null || echo -llttng-ctl)
PKG_DDS  = -lddsc
PKG_CHECK= $(shell pkg-config --cflags --libs check 2>/dev/null || echo -lcheck)
PKG_PCRE2= $(shell pkg-config --libs libpcre2-8 2>/dev/null || echo -lpcre2-8)
# CARET's filter patterns (util/regex/caret_regex.h), in every program that links them.
REGEX_SRC = util/regex/caret_regex.c util/regex/caret_regex_dialect.c util/regex/caret_regex_probe.c

DEB_PACKAGES = build-essential pkg-config lttng-tools liblttng-ust-dev liblttng-ctl-dev libpcre2-dev \
	babeltrace2 liburcu-dev libsystemd-dev cyclonedds-dev cyclonedds-tools \
	libcjson-dev check valgrind iproute2 procps python3 python3-bt2 \
	systemd util-linux mount libfastrtps-dev libfastcdr-dev g++ libbabeltrace2-dev strace clang zstd \
	tmux
# What `make deb` and its test (tests/integration/test_deb.py) need on top.
DEB_PACKAGING_PACKAGES = debhelper dpkg-dev fakeroot lintian

.PHONY: all programs deb deb-if-changed deps-deb check unit-check integration-check ros2-check ros2-fixture bench-ros2 bench-ros2-scale install uninstall deps clean
all:

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The agent and the libraries export nothing they do not mean to.
$(B)/obj/agent/%.o $(B)/obj/shm/%.o $(B)/obj/util/%.o $(B)/obj/proto/caret_regex.o $(B)/obj/proto/caret_regex_%.o: CFLAGS += -fvisibility=hidden

# ---- generated from proto/caret_segment.h (CARET_STATES) and caret_seg_records.h (CARET_KINDS) ----
GEN_KINDS = $(B)/gen-tool/gen_kinds
$(GEN_KINDS): proto/gen/gen_kinds.c proto/caret_segment.h proto/caret_seg_records.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MF $@.d -o $@ $< $(LDFLAGS)
KINDS_GEN_H = $(B)/gen/caret_tp_events.h $(B)/gen/caret_tp_emit.h $(B)/gen/caret_capture.h \
	$(B)/gen/caret_init_hooks.h
$(B)/gen/caret_tp_events.h: GEN_MODE = tp-events
$(B)/gen/caret_tp_emit.h: GEN_MODE = tp-emit
$(B)/gen/caret_capture.h: GEN_MODE = capture
$(B)/gen/caret_init_hooks.h: GEN_MODE = init-hooks
$(B)/gen/caret_kinds.py: GEN_MODE = python
$(KINDS_GEN_H) $(B)/gen/caret_kinds.py: $(GEN_KINDS)
	@mkdir -p $(dir $@)
	$(GEN_KINDS) $(GEN_MODE) > $@.tmp && mv $@.tmp $@
# The agent's files include them; the first build has no .d yet.
$(call obj,$(wildcard agent/*.c agent/tp/*.c)) $(B)/obj/agent/tp/caret_tp_humble.o: $(KINDS_GEN_H)
all: $(B)/gen/caret_kinds.py

# ---- util: clock and size parsing, for every program (caretctl too) ----
UTIL_SRC = util/clock.c util/size.c util/hex.c util/atomic_file.c util/grow.c util/dir.c
$(B)/lib/libcaretutil.a: $(call obj,$(UTIL_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# ---- shm: the cache library (static; always linked with libcaretutil.a) ----
SHM_SRC = shm/kinds.c shm/naming.c shm/armed.c shm/segment.c shm/record.c shm/control.c shm/owner.c \
	shm/futex.c shm/reader.c shm/reader_sources.c shm/reader_token.c shm/filter.c shm/counters.c
SHM_LIBS = $(B)/lib/libcaretshm.a $(B)/lib/libcaretutil.a
$(B)/lib/libcaretshm.a: $(call obj,$(SHM_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# ---- agent: libcaret-agent.so (no lttng-ust, no ddsc) + its provider ----
# CARET's trace filters: the API, the relations, the lists, the verdict table.
AGENT_FILTER_SRC = agent/filter.c agent/filter_rel.c agent/filter_list.c agent/filter_verdicts.c
AGENT_SRC = agent/agent.c agent/replay.c agent/hooks_init.c agent/hooks_runtime.c \
	agent/hooks_dds.c agent/hooks_rclcpp.c agent/resolve.c agent/distro.c agent/hooks_fastdds.c $(AGENT_FILTER_SRC) \
	agent/tpwatch.c agent/state.c agent/count.c agent/provider.c $(REGEX_SRC)
$(B)/lib/libcaret-agent.so: $(call obj,$(AGENT_SRC)) $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDFLAGS) -Wl,--no-undefined -ldl -lpthread $(PKG_PCRE2)

$(B)/lib/libcaret-agent-tp.so: $(call obj,agent/tp/caret_tp.c)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDFLAGS) -Wl,--no-undefined $(PKG_UST) -ldl

# The same provider with CARET's Humble/Iron ros2_caret:dds_write (message
# only); the agent loads it when it detects Humble or Iron.
$(B)/obj/agent/tp/caret_tp_humble.o: agent/tp/caret_tp.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DCARET_TP_PRE_JAZZY -c $< -o $@
-include $(B)/obj/agent/tp/caret_tp_humble.d

$(B)/lib/libcaret-agent-tp-humble.so: $(B)/obj/agent/tp/caret_tp_humble.o
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDFLAGS) -Wl,--no-undefined $(PKG_UST) -ldl

# ---- daemon ----
PKG_DAEMON = $(shell pkg-config --libs lttng-ctl libcjson libsystemd 2>/dev/null || echo -llttng-ctl -lcjson -lsystemd)
# The control protocol's codec, one for both ends.
CTL_PROTO_SRC = proto/caret_ctl_enc.c proto/caret_ctl_reply.c proto/caret_ctl_dec.c proto/caret_ctl_hosts.c proto/caret_ctl_snapshot_res.c proto/caret_ctl_recordings.c proto/caret_ctl_graph.c proto/caret_ctl_check.c proto/caret_ctl_record_list.c proto/caret_ctl_summary.c \
	proto/caret_ctl_limits.c proto/caret_ctl_events.c proto/caret_ctl_evlist.c proto/caret_ctl_sel.c proto/caret_ctl_sel_wire.c proto/caret_ctl_req.c proto/caret_ctl_plan.c proto/caret_ctl_top.c \
	proto/caret_ctl_version.c 	proto/caret_utf8.c $(REGEX_SRC)

# The LTTng door and the requester's rights (lib/lttng/): caretd and caretctl both link it.
LIB_LTTNG_SRC = $(wildcard lib/lttng/*.c)
# The bridge's parts (daemon/bridge/bridge.h), in every program that links it.
BRIDGE_SRC = $(wildcard daemon/bridge/*.c)
# caretd by folder, bottom first (README: Architecture): base (log, loop),
# lttng (what LTTng has), agents (registry, scheduler, pacer), recording
# (the recordings and their features), bridge (other hosts), server (the
# socket and the commands), and main.c with config.c at the top.
DAEMON_PARTS_SRC = $(wildcard daemon/base/*.c daemon/lttng/*.c daemon/agents/*.c \
	daemon/recording/*.c) $(BRIDGE_SRC) $(wildcard daemon/server/*.c) $(LIB_LTTNG_SRC)
# The commands and everything they call, without main, the socket server and
# the service manager's notifications: check_commands and the ctl fuzzer
# (tests/fuzz/fuzz.mk) link the same list.
CMD_SRC = $(filter-out daemon/server/server.c daemon/server/notify.c,$(DAEMON_PARTS_SRC)) \
	$(CTL_PROTO_SRC)
DAEMON_SRC = daemon/main.c daemon/config.c $(DAEMON_PARTS_SRC) $(CTL_PROTO_SRC)

# The DDS types of the bridge (CARET's caret_msgs and caretd's own), from
# the IDL in proto/ by CycloneDDS's idlc at build time.
IDLC ?= idlc
$(B)/gen/caret_msgs.c $(B)/gen/caret_msgs.h: proto/caret_msgs.idl
	@mkdir -p $(B)/gen
	$(IDLC) -o $(B)/gen $<
$(B)/obj/gen/caret_msgs.o: $(B)/gen/caret_msgs.c $(B)/gen/caret_msgs.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(call obj,$(BRIDGE_SRC) daemon/main.c): $(B)/gen/caret_msgs.h

$(B)/bin/caretd: $(call obj,$(DAEMON_SRC)) $(B)/obj/gen/caret_msgs.o $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DAEMON) -ldl $(PKG_PCRE2)

# ---- tools ----
AGENTCTL_SRC = tools/agentctl/agentctl.c
$(B)/bin/caret-agentctl: $(call obj,$(AGENTCTL_SRC)) $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)

CARETCTL_SRC = $(wildcard tools/caretctl/*.c)
PKG_CJSON = $(shell pkg-config --libs libcjson 2>/dev/null || echo -lcjson)
# caretctl check reads CTF through libbabeltrace2.
PKG_BT2 = $(shell pkg-config --libs babeltrace2 2>/dev/null || echo -lbabeltrace2)
# It stops its own recording through lttng-ctl while caretd is away (B5),
# with caretd's door to LTTng (and, as root, hands a user's trace over).
$(B)/bin/caretctl: $(call obj,$(CARETCTL_SRC) $(CTL_PROTO_SRC) $(LIB_LTTNG_SRC)) \
		$(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_BT2) $(PKG_CTL) $(PKG_PCRE2)

all: $(B)/lib/libcaret-agent.so $(B)/lib/libcaret-agent-tp.so $(B)/lib/libcaret-agent-tp-humble.so $(B)/bin/caret-agentctl \
	$(B)/bin/caretd $(B)/bin/caretctl

# ---- caret-simclock: /clock into ros2_caret:sim_time for `record -c`
# (tools/simclock/simclock.c says why a process of its own). caretd runs
# it from ../lib/caretd/ beside its own bin/ (daemon/recording/simclock.c): the
# build tree and an install look the same. ROS's /clock type from
# proto/ros_clock.idl by idlc, as the bridge's.
$(B)/gen/ros_clock.c $(B)/gen/ros_clock.h: proto/ros_clock.idl
	@mkdir -p $(B)/gen
	$(IDLC) -o $(B)/gen $<
$(B)/obj/gen/ros_clock.o: $(B)/gen/ros_clock.c $(B)/gen/ros_clock.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(B)/obj/tools/simclock/simclock.o: $(B)/gen/ros_clock.h
$(B)/lib/caretd/caret-simclock: $(call obj,tools/simclock/simclock.c) $(B)/obj/gen/ros_clock.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DDS) $(PKG_UST) -ldl
all: $(B)/lib/caretd/caret-simclock

include tools/standin/standin.mk
include tools/standin/clock/clock.mk
include tests/fuzz/fuzz.mk

# ---- benchmarks (make bench; a smoke run is part of make check) ----
$(B)/bench/caret-flood: $(call obj,bench/flood.c) $(B)/lib/libtracetools.so
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LDFLAGS) -L$(B)/lib -ltracetools -lpthread -Wl,-rpath,'$$ORIGIN/../lib'

$(B)/bench/caret-readerbench: $(call obj,bench/reader_bench.c) $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)

# caretd's own session start, alone (the limit's first term)
$(B)/bench/caret-sessstart: $(call obj,bench/sessstart.c $(LIB_LTTNG_SRC) \
		proto/caret_ctl_limits.c \
		proto/caret_ctl_evlist.c proto/caret_ctl_sel.c proto/caret_utf8.c) $(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) -llttng-ctl

include bench/micro/micro.mk
BENCH_BINS = $(B)/bench/caret-flood $(B)/bench/caret-microbench $(B)/bench/caret-readerbench \
	$(B)/bench/caret-sessstart

.PHONY: bench bench-smoke
# Like the tests, against a session daemon of their own (tools/isolated.sh).
bench: all $(BENCH_BINS)
	tools/isolated.sh /usr/bin/python3 bench/run.py --b $(B)

bench-smoke: all $(BENCH_BINS)
	@# run.py fails when a row is missing or not measured, or regressed
	@# beyond its gate (bench/gates.py: instruction counts where there are
	@# some, margins for a loaded 2-core machine elsewhere); the table is
	@# shown either way, and checked again here: every id exactly once,
	@# with a measured result and a passed gate.
	/usr/bin/python3 -B bench/test_gates.py -q
	/usr/bin/python3 -B bench/test_replay_split.py -q
	tools/isolated.sh /usr/bin/python3 bench/run.py --b $(B) --smoke \
		--out $(B)/bench/RESULTS-smoke.md > $(B)/bench/smoke.txt || { cat $(B)/bench/smoke.txt; exit 1; }
	cat $(B)/bench/smoke.txt
	@set -e; for id in P1 P2 P3 P4 P4b P4c P5 P6 P6b P7 P8 P9 P10 P11 P12 P13; do \
		n=$$(grep -cE "^$$id  .*\| (met|not met)$$" $(B)/bench/smoke.txt || true); \
		test "$$n" -eq 1 || { echo "bench-smoke: $$id reported $$n times with a measured result"; exit 1; }; \
		grep -qE "^gate $$id: ok: " $(B)/bench/smoke.txt || { echo "bench-smoke: $$id has no passed gate"; exit 1; }; \
	done

# ---- tests ----
UNIT_TESTS = $(B)/tests/check_shm
$(B)/tests/check_shm: $(call obj,tests/unit/check_shm.c tests/unit/check_shm_handshake.c \
		tests/unit/check_shm_hostile.c tests/unit/check_shm_counters.c) $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK) -lpthread

$(B)/tests/forker: $(call obj,tests/integration/forker.c) $(B)/lib/libtracetools.so
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LDFLAGS) -L$(B)/lib -ltracetools -Wl,-rpath,'$$ORIGIN/../lib'

$(B)/tests/initmaker: $(call obj,tests/integration/initmaker.c) $(B)/lib/libtracetools.so
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LDFLAGS) -L$(B)/lib -ltracetools -Wl,-rpath,'$$ORIGIN/../lib'

UNIT_TESTS += $(B)/tests/check_reader
$(B)/tests/check_reader: $(call obj,tests/unit/check_reader.c tests/unit/reader_fixture.c) \
		$(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK) -lpthread

UNIT_TESTS += $(B)/tests/check_reader_hostile
$(B)/tests/check_reader_hostile: $(call obj,tests/unit/check_reader_hostile.c tests/unit/reader_fixture.c) \
		$(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK) -lpthread

UNIT_TESTS += $(B)/tests/check_caretctl
CARETCTL_UNIT_SRC = tools/caretctl/parse.c tools/caretctl/tracedir.c \
	tools/caretctl/progress_text.c $(CTL_PROTO_SRC)
$(B)/tests/check_caretctl: $(call obj,tests/unit/check_caretctl.c $(CARETCTL_UNIT_SRC)) \
		$(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_CHECK) $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_model
CHECK_MODEL_SRC = tools/caretctl/check_links.c tools/caretctl/check_map.c \
	tools/caretctl/check_wire.c tools/caretctl/complete.c tools/caretctl/check_run.c \
	tools/caretctl/check_bt.c tools/caretctl/check_model.c tools/caretctl/check_class.c \
	tools/caretctl/check_init.c tools/caretctl/check_field.c \
	tools/caretctl/check_discards.c tools/caretctl/check_stream.c tools/caretctl/check_pass.c \
	tools/caretctl/check_summary.c
$(B)/tests/check_model: $(call obj,tests/unit/check_model.c $(CHECK_MODEL_SRC)) $(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_BT2) $(PKG_CHECK)

# check_model fed init records by a babeltrace2 source of its own.
UNIT_TESTS += $(B)/tests/check_model_init
$(B)/tests/check_model_init: $(call obj,tests/unit/check_model_init.c $(CHECK_MODEL_SRC)) $(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_BT2) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_ctl_proto
$(B)/tests/check_ctl_proto: $(call obj,tests/unit/check_ctl_proto.c $(CTL_PROTO_SRC))
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_CHECK) $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_ctl_replies
$(B)/tests/check_ctl_replies: $(call obj,tests/unit/check_ctl_replies.c $(CTL_PROTO_SRC))
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_CHECK) $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_ctl_listings
$(B)/tests/check_ctl_listings: $(call obj,tests/unit/check_ctl_listings.c $(CTL_PROTO_SRC))
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_CHECK) $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_ctl_version
$(B)/tests/check_ctl_version: $(call obj,tests/unit/check_ctl_version.c $(CTL_PROTO_SRC))
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_CHECK) $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_ctl_req
$(B)/tests/check_ctl_req: $(call obj,tests/unit/check_ctl_req.c $(CTL_PROTO_SRC))
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_CHECK) $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_plan
$(B)/tests/check_plan: $(call obj,tests/unit/check_plan.c lib/lttng/lttng_layout.c $(CTL_PROTO_SRC)) \
		$(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_CHECK) $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_start_msg
$(B)/tests/check_start_msg: $(call obj,tests/unit/check_start_msg.c daemon/lttng/lttng_start_msg.c)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

# lttng_start_after against a fake start helper: this binary in the helper's mode.
UNIT_TESTS += $(B)/tests/check_start_after
$(B)/tests/check_start_after: $(call obj,tests/unit/check_start_after.c tests/unit/helper_fixture.c \
		daemon/lttng/lttng_start.c \
		daemon/lttng/lttng_start_msg.c daemon/base/log.c proto/caret_utf8.c) $(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DAEMON) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_drain
$(B)/tests/check_drain: $(call obj,tests/unit/check_drain.c tests/unit/drain_fixture.c tests/unit/index_fixture.c \
		daemon/lttng/lttng_drain.c)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_drain_horizon
$(B)/tests/check_drain_horizon: $(call obj,tests/unit/check_drain_horizon.c tests/unit/drain_fixture.c tests/unit/index_fixture.c \
		daemon/lttng/lttng_drain.c)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

# The pacer's reaction to the tracer's discards (it includes daemon/agents/pacer.c and pacer_fb.c).
UNIT_TESTS += $(B)/tests/check_pacer
$(B)/tests/check_pacer: $(call obj,tests/unit/check_pacer.c tests/unit/index_fixture.c daemon/lttng/lttng_drain.c daemon/agents/dups.c daemon/agents/pacer_cpus.c \
		daemon/agents/pacer_hist.c \
		daemon/agents/scheduler.c daemon/agents/sched_pass.c daemon/agents/registry.c daemon/base/rejects.c daemon/base/sigbus.c daemon/agents/startend.c \
		daemon/config.c daemon/base/loop.c daemon/lttng/lttng_view.c \
		$(LIB_LTTNG_SRC) \
		proto/caret_ctl_evlist.c proto/caret_ctl_sel.c \
		proto/caret_ctl_limits.c daemon/base/log.c proto/caret_utf8.c) $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DAEMON) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_creds
$(B)/tests/check_creds: $(call obj,tests/unit/check_creds.c lib/lttng/creds.c) $(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_snapshot_mem
$(B)/tests/check_snapshot_mem: $(call obj,tests/unit/check_snapshot_mem.c daemon/recording/snapshot_mem.c)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_chunks
$(B)/tests/check_chunks: $(call obj,tests/unit/check_chunks.c daemon/recording/chunks.c lib/lttng/creds.c \
		daemon/base/log.c proto/caret_utf8.c) $(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DAEMON) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_daemon
$(B)/tests/check_daemon: $(call obj,tests/unit/check_daemon.c tests/unit/check_daemon_restart.c \
		tests/unit/check_daemon_registry.c tests/unit/check_daemon_pacing.c \
		tests/unit/daemon_fixture.c daemon/agents/scheduler.c daemon/agents/sched_pass.c daemon/agents/dups.c \
		daemon/agents/startend.c daemon/agents/registry.c daemon/base/rejects.c daemon/base/sigbus.c daemon/config.c \
		proto/caret_ctl_limits.c \
		daemon/base/log.c proto/caret_utf8.c) $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_commands
$(B)/tests/check_commands: $(call obj,tests/unit/check_commands.c tests/unit/check_commands_state.c \
		tests/unit/check_commands_status.c tests/unit/check_commands_events.c \
		tests/unit/check_commands_arm.c tests/unit/check_commands_make.c \
		tests/unit/check_commands_rotation.c tests/unit/check_commands_rotation_passes.c \
		tests/unit/rot_fixture.c tests/unit/check_commands_snapshot.c \
		tests/unit/check_commands_poll.c tests/unit/check_commands_simclock.c \
		tests/unit/check_commands_pause.c tests/unit/check_commands_hold.c \
		tests/unit/check_commands_held.c \
		tests/unit/check_commands_plan.c tests/unit/check_commands_top.c tests/unit/cmd_fixture.c $(CMD_SRC)) \
		$(B)/obj/gen/caret_msgs.o $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DAEMON) -ldl $(PKG_CHECK) $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_log
$(B)/tests/check_log: $(call obj,tests/unit/check_log.c daemon/base/log.c proto/caret_utf8.c util/clock.c)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_loop
$(B)/tests/check_loop: $(call obj,tests/unit/check_loop.c daemon/base/loop.c util/clock.c)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DAEMON) $(PKG_CHECK)

# The bridge's relay session against check_commands' fake session daemon.
UNIT_TESTS += $(B)/tests/check_bridge_relay
$(B)/obj/tests/unit/check_bridge_relay.o: $(B)/gen/caret_msgs.h
$(B)/tests/check_bridge_relay: $(call obj,tests/unit/check_bridge_relay.c tests/unit/cmd_fixture.c \
		tests/unit/limit_fixture.c $(CMD_SRC)) \
		$(B)/obj/gen/caret_msgs.o $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DAEMON) -ldl $(PKG_CHECK) $(PKG_PCRE2)

# The same, its session made by a fake start helper (this binary in the
# helper's mode); lttng_start_async wrapped, the real one keeping a fake
# LTTng's starts in line.
UNIT_TESTS += $(B)/tests/check_bridge_relay_start
$(B)/obj/tests/unit/check_bridge_relay_start.o: $(B)/gen/caret_msgs.h
$(B)/tests/check_bridge_relay_start: $(call obj,tests/unit/check_bridge_relay_start.c \
		tests/unit/cmd_fixture.c tests/unit/helper_fixture.c tests/unit/limit_fixture.c $(CMD_SRC)) $(B)/obj/gen/caret_msgs.o $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) -Wl,--wrap=lttng_start_async $(PKG_DAEMON) -ldl $(PKG_CHECK) \
		$(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_cleanup
$(B)/tests/check_cleanup: $(call obj,tests/unit/check_cleanup.c)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_util
$(B)/tests/check_util: $(call obj,tests/unit/check_util.c) $(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_distro
$(B)/tests/check_distro: $(call obj,tests/unit/check_distro.c agent/distro.c)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_bridge_wake
$(B)/tests/check_bridge_wake: $(call obj,tests/unit/check_bridge_wake.c daemon/bridge/bridge_wake.c \
		daemon/bridge/bridge_pending.c daemon/base/log.c proto/caret_utf8.c) $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK) -lsystemd

UNIT_TESTS += $(B)/tests/check_bridge_msg
$(B)/obj/tests/unit/check_bridge_msg.o: $(B)/gen/caret_msgs.h
$(B)/tests/check_bridge_msg: $(call obj,tests/unit/check_bridge_msg.c daemon/bridge/bridge_msg.c $(REGEX_SRC) proto/caret_ctl_limits.c) \
		$(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK) $(PKG_PCRE2)

# The filter dialect's translation against libstdc++'s std::regex itself
# (what caret_trace compiles CARET's lists with).
UNIT_TESTS += $(B)/tests/check_regex
# (GCC 12 warns inside <regex> under the sanitizers: -Wmaybe-uninitialized
# in std::function, libstdc++'s code, not ours)
$(B)/tests/check_regex: tests/unit/check_regex.cpp $(call obj,$(REGEX_SRC))
	@mkdir -p $(dir $@)
	$(CXX) -O1 -g -std=c++17 -Wall -Wextra -Werror -Wno-maybe-uninitialized -I. -Iproto \
		-o $@ $^ $(LDFLAGS) $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_count
$(B)/tests/check_count: $(call obj,tests/unit/check_count.c agent/count.c agent/state.c) $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK) -lpthread

UNIT_TESTS += $(B)/tests/check_filter
$(B)/tests/check_filter: $(call obj,tests/unit/check_filter.c $(AGENT_FILTER_SRC) $(REGEX_SRC))
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK) -lpthread $(PKG_PCRE2)

UNIT_TESTS += $(B)/tests/check_lttng
$(B)/tests/check_lttng: $(call obj,tests/unit/check_lttng.c $(LIB_LTTNG_SRC) \
		proto/caret_ctl_limits.c proto/caret_ctl_evlist.c proto/caret_ctl_sel.c) $(B)/lib/libcaretutil.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CTL) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_tp_layout
# Links the provider's object itself: the layouts compared are the ones
# lttng-ust builds from it.
$(B)/tests/check_tp_layout: $(call obj,tests/unit/check_tp_layout.c agent/tp/caret_tp.c) \
		$(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_UST) -ldl $(PKG_CHECK)

# The same comparison for the Humble/Iron provider.
UNIT_TESTS += $(B)/tests/check_tp_layout_humble
$(B)/obj/tests/unit/check_tp_layout_humble.o: tests/unit/check_tp_layout.c $(KINDS_GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DCARET_TP_PRE_JAZZY -c $< -o $@

$(B)/tests/check_tp_layout_humble: $(B)/obj/tests/unit/check_tp_layout_humble.o \
		$(B)/obj/agent/tp/caret_tp_humble.o $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_UST) -ldl $(PKG_CHECK)

# Local-scope loading (tests/local): libraries opened RTLD_LOCAL as real
# ROS 2 opens the RMW layer and rclpy its extension.
LS = $(B)/tests/local
$(LS)/libls_dds.so $(LS)/libls_tt.so: $(LS)/lib%.so: tests/local/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -o $@ $< $(LDFLAGS)
$(LS)/libls_rmw.so: tests/local/ls_rmw.c $(LS)/libls_dds.so
	$(CC) $(CFLAGS) -shared -o $@ $< $(LDFLAGS) -L$(LS) -lls_dds -Wl,-rpath,'$$ORIGIN'
$(LS)/libls_ext.so: tests/local/ls_ext.c $(LS)/libls_tt.so
	$(CC) $(CFLAGS) -shared -o $@ $< $(LDFLAGS) -L$(LS) -lls_tt -Wl,-rpath,'$$ORIGIN'
$(LS)/ls_main: tests/local/ls_main.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -ldl
$(LS)/libls_rclcpp.so: tests/local/ls_rclcpp_a.c tests/local/ls_rclcpp_b.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -o $@ $^ $(LDFLAGS)
$(LS)/libtp_test.so: tests/local/tp_test.c $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -o $@ $^ $(LDFLAGS)
$(LS)/exec_main: tests/local/exec_main.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDFLAGS) -ldl
# The replay loop and its claims, this process its own controller.
$(LS)/replay_main: tests/local/replay_main.c $(SHM_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) -ldl -lpthread
# Real Fast DDS: the agent's DataWriter hooks (tests/local/fastdds_main.cpp).
CXX ?= g++
$(LS)/fastdds_main: tests/local/fastdds_main.cpp
	@mkdir -p $(dir $@)
	$(CXX) -O1 -g -std=c++17 -Wall -Wextra -Werror -Wno-deprecated-declarations \
		$(filter -fsanitize% -fno-omit%,$(CFLAGS)) -o $@ $< $(LDFLAGS) -lfastrtps -lfastcdr -ldl -lpthread
LOCAL_TEST_BINS = $(LS)/fastdds_main $(LS)/ls_main $(LS)/libls_rmw.so $(LS)/libls_ext.so $(LS)/libls_rclcpp.so \
	$(LS)/libtp_test.so $(LS)/exec_main $(LS)/replay_main

.PHONY: local-check
local-check: $(LOCAL_TEST_BINS) $(B)/lib/libcaret-agent.so $(B)/lib/libcaret-agent-tp.so \
		$(B)/bin/caret-agentctl
	B=$(B) SAN=$(SAN) tools/isolated.sh tests/local/run.sh

unit-check: $(UNIT_TESTS) $(LOCAL_TEST_BINS)
	B=$(B) /usr/bin/python3 tests/unit/check_layers.py
	/usr/bin/python3 tests/unit/check_spdx.py
	/usr/bin/python3 tests/unit/check_func_len.py
	/usr/bin/python3 tests/unit/check_cjson.py
	/usr/bin/python3 tests/unit/check_readme_deps.py
	@# it imports the relocated rclpy, whose tracetools registers with lttng-ust: a host of its own
	tools/isolated.sh tests/unit/check_prebuilt.sh
	@# check_lttng needs a session daemon: the one tools/isolated.sh starts
	@# under the sanitizers each test runs in one process: LeakSanitizer
	@# reports at exit, which Check's forked children skip (_exit)
	tools/isolated.sh sh -c 'set -e; for t in $(UNIT_TESTS); do echo "== $$t"; \
		CK_DEFAULT_TIMEOUT=60 $(if $(filter 1,$(SAN)),CK_FORK=no) $$t; done'
	$(MAKE) local-check

# A plain CycloneDDS peer speaking CARET's topics, for the multi-host tests.
$(B)/gen/ddspeer_garbage.c $(B)/gen/ddspeer_garbage.h: tests/integration/ddspeer_garbage.idl
	@mkdir -p $(B)/gen
	$(IDLC) -o $(B)/gen $<
$(B)/obj/gen/ddspeer_garbage.o: $(B)/gen/ddspeer_garbage.c $(B)/gen/ddspeer_garbage.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(B)/obj/tests/integration/ddspeer.o: $(B)/gen/caret_msgs.h $(B)/gen/ddspeer_garbage.h
$(B)/tests/caret-ddspeer: $(call obj,tests/integration/ddspeer.c) $(B)/obj/gen/caret_msgs.o \
		$(B)/obj/gen/ddspeer_garbage.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DDS)

# What the integration modules run besides the programs of `all`: one
# module run by hand needs them too (`make test-programs`).
TEST_PROGRAMS = $(B)/tests/forker $(B)/tests/initmaker $(B)/gen/caret_kinds.py \
	$(B)/bench/caret-flood $(B)/tests/caret-ddspeer
.PHONY: test-programs
test-programs: all $(TEST_PROGRAMS)

integration-check: all $(TEST_PROGRAMS) $(DEB_STAMP)
	@# each module in its own namespaces, with its own session daemon
	B=$(B) SAN=$(SAN) DEB_OUT=$(DEB_OUT) tests/integration/run.sh

# The agent on a real ROS 2 core (Humble and Jazzy built from ../shared/ros2
# into a cache on first use: tools/ros2/fixture.sh), next to the stand-in.
# It runs as its own host (tools/isolated.sh): its own lttng-sessiond, /run/lttng
# and /dev/shm, so no other session on the machine replays into its traces.
# The fixture and the real CARET beside it (tools/ros2/caret.sh) are built
# (or found) first, outside: their first build installs packages from Debian,
# and the isolated host has no network.
CARET_ROS2_DISTROS ?= humble jazzy
export CARET_ROS2_DISTROS
# A cold cache first takes the prebuilt fixtures of ../shared/ros2/prebuilt whose names are the
# keys just computed (seconds: tools/ros2/prebuilt.sh), and builds only what has none.
# rclpy (tools/ros2/rclpy.sh, an overlay on the core) the same way: from prebuilt/ or already
# built; built from source (18 more minutes for Humble, 39 for Jazzy) only with CARET_ROS2_RCLPY=1.
ros2-fixture:
	@set -e; for d in $(CARET_ROS2_DISTROS); do tools/ros2/fixture.sh $$d; tools/ros2/caret.sh $$d; \
		case "$${CARET_ROS2_RCLPY:-}" in 1) tools/ros2/rclpy.sh $$d ;; 0) ;; \
		*) tools/ros2/rclpy.sh $$d --if-built >/dev/null || echo "rclpy for $$d: none built or prebuilt" ;; esac; done
# Issue 19's cost per message on the real Jazzy core (bench/RESULTS-ros2.md).
# Both distributions and both RMWs, plain ros2_tracing as the floor, caret_trace beside, and
# the agent's share of LTTng's session start (bench/ros2_bench.py); fixtures and caret_trace
# built (or found) first, outside the isolated host.
bench-ros2: all
	/usr/bin/python3 -B bench/test_ros2_bench.py -q
	for d in jazzy humble; do tools/ros2/fixture.sh $$d >/dev/null && tools/ros2/caret.sh $$d >/dev/null || exit 1; done
	B=$(B) tools/isolated.sh /usr/bin/python3 bench/ros2_bench.py --distro jazzy,humble \
		--rmw rmw_cyclonedds_cpp,rmw_fastrtps_cpp --caret --start-procs 10,20
# Issue 34 item 5: a generated real system (16 and 50 processes x 8 nodes, both RMWs) recorded
# late by caretctl record and by caret_trace (bench/RESULTS-ros2-scale.md), then the agent's
# share of LTTng's session start, with and without it interleaved (RESULTS-ros2-scale-ab.md);
# saturates 2 cores for minutes.
bench-ros2-scale: all
	tools/ros2/fixture.sh jazzy >/dev/null
	w=$$(tools/ros2/caret.sh jazzy) && B=$(B) tools/isolated.sh /usr/bin/python3 \
		bench/ros2_scale.py --libcaret $$w/install/lib/libcaret.so
	B=$(B) tools/isolated.sh /usr/bin/python3 bench/ros2_scale_ab.py
ros2-check: all $(B)/gen/caret_kinds.py ros2-fixture
	/usr/bin/python3 -B bench/test_ros2_scale_gate.py -q
	B=$(B) SAN=$(SAN) tools/isolated.sh tests/ros2/run.sh

# Everything: normal build + unit + integration, the sanitizer build, the
# real-ROS suite (ros2-check) and a smoke run of the benchmarks so they cannot rot. Every stage runs and
# prints its result even when an earlier one failed; a table of results
# and times ends the run, which fails if any stage failed. Nothing runs
# against the machine's own lttng-sessiond, /dev/shm or DDS domains: see
# tools/isolated.sh.
check:
	+tools/check-stages.sh "$(MAKE)"

# The packaging tools too: `make check` builds and tests the package.
deps:
	tools/install-deps.sh $(DEB_PACKAGES) $(DEB_PACKAGING_PACKAGES)

deps-deb:
	tools/install-deps.sh $(DEB_PACKAGING_PACKAGES)

# Installed files, relative to $(DESTDIR)$(PREFIX) (the libraries, units
# and sysusers have their own directories); `make uninstall` removes
# exactly these. The Debian package is this install (debian/rules).
BIN_FILES  = caretd caretctl caret-agentctl
LIB_FILES  = libcaret-agent.so libcaret-agent-tp.so libcaret-agent-tp-humble.so
# caretd's helpers, where it runs them from: ../lib/caretd/ beside its bin/
# (daemon/recording/simclock.c), whatever LIBDIR is
HELPER_FILES = caret-simclock
HELPERDIR    = $(PREFIX)/lib/caretd
MAN1_FILES = caretctl.1 caret-agentctl.1
MAN7_FILES = caret-agent.7
MAN8_FILES = caretd.8
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOCDIR      ?= $(PREFIX)/share/doc/caretd

# The unit is written from its template at install time, every time, so
# its paths are always this PREFIX's (a unit made by an earlier `make` with
# another PREFIX cannot slip in). The stand-ins are test fixtures that
# could shadow a real ROS 2 install: only `make install-standin` puts them
# anywhere.
INSTALL_DIRS = $(PREFIX)/bin $(LIBDIR) $(HELPERDIR) $(PREFIX)/share/man/man1 $(PREFIX)/share/man/man7 \
	$(PREFIX)/share/man/man8 $(SYSTEMD_UNITDIR) $(SYSUSERSDIR) $(BASHCOMPDIR) $(DOCDIR)
# The directories an install created (not those it found), relative to
# DESTDIR: `make uninstall` removes them when they are empty again. A package
# build (INSTALLED_DIRS_RECORD=0) records nothing: dpkg owns its directories.
INSTALLED_DIRS = $(DESTDIR)$(DOCDIR)/installed-dirs
INSTALLED_DIRS_RECORD ?= 1

programs: $(addprefix $(B)/bin/,$(BIN_FILES)) $(addprefix $(B)/lib/,$(LIB_FILES)) \
	$(addprefix $(B)/lib/caretd/,$(HELPER_FILES))

install: programs
	@set -e; made=$$(for d in $(INSTALL_DIRS); do p="$(DESTDIR)$$d"; \
		while [ "$$p" != / ] && [ "$$p" != . ] && [ ! -e "$$p" ] && [ ! -L "$$p" ]; do \
			echo "$${p#"$(DESTDIR)"}"; p=$$(dirname "$$p"); done; done); \
	install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS)); \
	if [ "$(INSTALLED_DIRS_RECORD)" = 1 ]; then \
	{ cat $(INSTALLED_DIRS) 2>/dev/null || true; for d in $$made; do echo "$$d"; done; } | \
		sort -u > $(INSTALLED_DIRS).tmp; \
	mv $(INSTALLED_DIRS).tmp $(INSTALLED_DIRS); chmod 0644 $(INSTALLED_DIRS); fi
	install -m 0755 $(addprefix $(B)/bin/,$(BIN_FILES)) $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(addprefix $(B)/lib/,$(LIB_FILES)) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(addprefix $(B)/lib/caretd/,$(HELPER_FILES)) $(DESTDIR)$(HELPERDIR)/
	install -m 0644 $(addprefix man/,$(MAN1_FILES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(addprefix man/,$(MAN7_FILES)) $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 0644 $(addprefix man/,$(MAN8_FILES)) $(DESTDIR)$(PREFIX)/share/man/man8/
	sed 's|@BINDIR@|$(PREFIX)/bin|g' systemd/caretd.service.in > $(DESTDIR)$(SYSTEMD_UNITDIR)/caretd.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_UNITDIR)/caretd.service
	install -m 0644 systemd/caretd.socket $(DESTDIR)$(SYSTEMD_UNITDIR)/
	install -m 0644 systemd/caretd.sysusers $(DESTDIR)$(SYSUSERSDIR)/caretd.conf
	install -m 0644 tools/caretctl/caretctl.bash $(DESTDIR)$(BASHCOMPDIR)/caretctl
	install -m 0644 LICENSE $(DESTDIR)$(DOCDIR)/

uninstall: uninstall-standin
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(BIN_FILES)) \
		$(addprefix $(DESTDIR)$(LIBDIR)/,$(LIB_FILES)) \
		$(addprefix $(DESTDIR)$(HELPERDIR)/,$(HELPER_FILES)) \
		$(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(MAN1_FILES)) \
		$(addprefix $(DESTDIR)$(PREFIX)/share/man/man7/,$(MAN7_FILES)) \
		$(addprefix $(DESTDIR)$(PREFIX)/share/man/man8/,$(MAN8_FILES)) \
		$(DESTDIR)$(SYSTEMD_UNITDIR)/caretd.service $(DESTDIR)$(SYSTEMD_UNITDIR)/caretd.socket \
		$(DESTDIR)$(SYSUSERSDIR)/caretd.conf $(DESTDIR)$(BASHCOMPDIR)/caretctl \
		$(DESTDIR)$(DOCDIR)/LICENSE
	@# children before their parents (reverse order); one still holding
	@# something of someone else's stays
	@if [ -f $(INSTALLED_DIRS) ]; then dirs=$$(sort -ru $(INSTALLED_DIRS)); \
		rm -f $(INSTALLED_DIRS); \
		for d in $$dirs; do case "$$d" in /*) rmdir "$(DESTDIR)$$d" 2>/dev/null || true;; esac; done; \
	fi
	rmdir $(DESTDIR)$(DOCDIR) $(DESTDIR)$(PREFIX)/lib/caretd 2>/dev/null || true

# ---- Debian package: `make deb` puts caretd_VERSION_ARCH.deb in $(DEB_OUT)
# (tools/build-deb.sh: dpkg-buildpackage -us -uc -b in a copy of the tree).
# The integration tests use $(DEB_STAMP), rebuilt when a file of the tree
# changes; it is one package for the normal and the sanitizer stage.
DEB_OUT   ?= build/deb
DEB_STAMP  = $(DEB_OUT)/.built
DEB_TREE  := $(wildcard $(shell git ls-files -co --exclude-standard 2>/dev/null || echo Makefile))
deb: deps-deb
	rm -f $(DEB_STAMP)
	$(MAKE) $(DEB_STAMP)

# The package only if the tree changed since it was built (the tests' way).
deb-if-changed: $(DEB_STAMP)

$(DEB_STAMP): $(DEB_TREE)
	tools/build-deb.sh $(DEB_OUT)
	touch $@

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
