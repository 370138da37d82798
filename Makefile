# caretd top-level build. `make` builds everything into build/, `make check`
# runs unit + integration tests (also under ASan+UBSan), `make install`
# honours PREFIX and DESTDIR, `make deps` installs the Debian packages.
PREFIX  ?= /usr/local
DESTDIR ?=
B       ?= build
SYSTEMD_UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR     ?= $(PREFIX)/lib/sysusers.d

CC      ?= cc
WARN     = -Wall -Wextra -Werror
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(WARN) -fPIC -D_GNU_SOURCE -I. -Iproto -I$(B)/gen -MMD -MP
LDFLAGS ?=

# Sanitizer build for tests: `make SAN=1` builds into build-san/.
ifeq ($(SAN),1)
B        = build-san
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

PKG_UST  = $(shell pkg-config --cflags --libs lttng-ust 2>/dev/null || echo -llttng-ust)
PKG_CTL  = $(shell pkg-config --cflags --libs lttng-ctl 2>/dev/null || echo -llttng-ctl)
PKG_DDS  = -lddsc
PKG_CHECK= $(shell pkg-config --cflags --libs check 2>/dev/null || echo -lcheck)

DEB_PACKAGES = build-essential pkg-config lttng-tools liblttng-ust-dev liblttng-ctl-dev \
	babeltrace2 liburcu-dev libsystemd-dev cyclonedds-dev cyclonedds-tools \
	libcjson-dev check valgrind iproute2 procps python3 python3-bt2 \
	systemd util-linux mount libfastrtps-dev libfastcdr-dev g++

.PHONY: all check unit-check integration-check install deps clean
all:

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# The agent and the cache library export nothing they do not mean to.
$(B)/obj/agent/%.o $(B)/obj/shm/%.o: CFLAGS += -fvisibility=hidden

# ---- shm: the cache library (static, linked into every program) ----
SHM_SRC = shm/kinds.c shm/naming.c shm/segment.c shm/record.c shm/control.c shm/parse.c
$(B)/lib/libcaretshm.a: $(call obj,$(SHM_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# ---- agent: libcaret-agent.so (no lttng-ust, no ddsc) + its provider ----
AGENT_SRC = agent/agent.c agent/replay.c agent/hooks_init.c agent/hooks_runtime.c \
	agent/hooks_dds.c agent/hooks_rclcpp.c
$(B)/lib/libcaret-agent.so: $(call obj,$(AGENT_SRC)) $(B)/lib/libcaretshm.a
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDFLAGS) -Wl,--no-undefined -ldl -lpthread

$(B)/lib/libcaret-agent-tp.so: $(call obj,agent/tp/caret_tp.c)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDFLAGS) -Wl,--no-undefined $(PKG_UST) -ldl

# ---- daemon ----
PKG_DAEMON = $(shell pkg-config --libs lttng-ctl libcjson libsystemd 2>/dev/null || echo -llttng-ctl -lcjson -lsystemd)
# The control protocol's codec, one for both ends.
CTL_PROTO_SRC = proto/caret_ctl_enc.c proto/caret_ctl_reply.c proto/caret_ctl_dec.c

DAEMON_SRC = daemon/main.c daemon/log.c daemon/registry.c daemon/registry_loop.c \
	daemon/scheduler.c daemon/pacer.c daemon/lttng.c daemon/lttng_view.c \
	daemon/notify.c daemon/wait.c daemon/config.c daemon/commands.c daemon/creds.c \
	daemon/server.c \
	proto/caret_ctl_enc.c proto/caret_ctl_reply.c
$(B)/bin/caretd: $(call obj,$(DAEMON_SRC)) $(B)/lib/libcaretshm.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DAEMON)

# ---- tools ----
AGENTCTL_SRC = tools/agentctl/agentctl.c
$(B)/bin/caret-agentctl: $(call obj,$(AGENTCTL_SRC)) $(B)/lib/libcaretshm.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS)

CARETCTL_SRC = $(wildcard tools/caretctl/*.c)
PKG_CJSON = $(shell pkg-config --libs libcjson 2>/dev/null || echo -lcjson)
$(B)/bin/caretctl: $(call obj,$(CARETCTL_SRC) $(CTL_PROTO_SRC)) $(B)/lib/libcaretshm.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON)

all: $(B)/lib/libcaret-agent.so $(B)/lib/libcaret-agent-tp.so $(B)/bin/caret-agentctl \
	$(B)/bin/caretd $(B)/bin/caretctl

include tools/standin/standin.mk

# ---- benchmarks (make bench; a smoke run is part of make check) ----
$(B)/bench/caret-flood: $(call obj,bench/flood.c) $(B)/lib/libtracetools.so
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LDFLAGS) -L$(B)/lib -ltracetools -lpthread -Wl,-rpath,'$$ORIGIN/../lib'

include bench/micro/micro.mk
BENCH_BINS = $(B)/bench/caret-flood $(B)/bench/caret-microbench

.PHONY: bench bench-smoke
bench: all $(BENCH_BINS)
	tools/ensure-sessiond.sh >/dev/null
	/usr/bin/python3 bench/run.py --b $(B)

bench-smoke: all $(BENCH_BINS)
	tools/ensure-sessiond.sh >/dev/null
	/usr/bin/python3 bench/run.py --b $(B) --smoke --out $(B)/bench/RESULTS-smoke.md > $(B)/bench/smoke.txt
	cat $(B)/bench/smoke.txt
	test "$$(grep -cE '^P(1|2|3|4|4b|4c|5) .*(met|not met)$$' $(B)/bench/smoke.txt)" -eq 7

# ---- tests ----
UNIT_TESTS = $(B)/tests/check_shm
$(B)/tests/check_shm: $(call obj,tests/unit/check_shm.c) $(B)/lib/libcaretshm.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK) -lpthread

$(B)/tests/forker: $(call obj,tests/integration/forker.c) $(B)/lib/libtracetools.so
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LDFLAGS) -L$(B)/lib -ltracetools -Wl,-rpath,'$$ORIGIN/../lib'

UNIT_TESTS += $(B)/tests/check_caretctl
CARETCTL_UNIT_SRC = tools/caretctl/parse.c tools/caretctl/tracedir.c $(CTL_PROTO_SRC)
$(B)/tests/check_caretctl: $(call obj,tests/unit/check_caretctl.c $(CARETCTL_UNIT_SRC)) \
		$(B)/lib/libcaretshm.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_ctl_proto
$(B)/tests/check_ctl_proto: $(call obj,tests/unit/check_ctl_proto.c $(CTL_PROTO_SRC))
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CJSON) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_daemon
$(B)/tests/check_daemon: $(call obj,tests/unit/check_daemon.c daemon/scheduler.c \
		daemon/registry.c daemon/config.c daemon/log.c) $(B)/lib/libcaretshm.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_commands
$(B)/tests/check_commands: $(call obj,tests/unit/check_commands.c daemon/commands.c \
		daemon/wait.c daemon/pacer.c daemon/scheduler.c daemon/registry.c daemon/lttng_view.c \
		daemon/lttng.c daemon/creds.c daemon/log.c $(CTL_PROTO_SRC)) $(B)/lib/libcaretshm.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_DAEMON) $(PKG_CHECK)

UNIT_TESTS += $(B)/tests/check_lttng
$(B)/tests/check_lttng: $(call obj,tests/unit/check_lttng.c daemon/lttng.c)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDFLAGS) $(PKG_CTL) $(PKG_CHECK)

unit-check: $(UNIT_TESTS)
	/usr/bin/python3 tests/unit/check_layers.py
	tools/ensure-sessiond.sh >/dev/null
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; CK_DEFAULT_TIMEOUT=60 $$t; done

integration-check: all $(B)/tests/forker
	tools/ensure-sessiond.sh >/dev/null
	B=$(B) SAN=$(SAN) tests/integration/run.sh

# Everything: normal build + unit + integration, the sanitizer build, and a
# smoke run of the benchmarks so they cannot rot.
check:
	$(MAKE) all unit-check
	$(MAKE) SAN=1 all unit-check
	$(MAKE) integration-check
	$(MAKE) SAN=1 integration-check
	$(MAKE) bench-smoke

deps:
	tools/install-deps.sh $(DEB_PACKAGES)

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/share/man/man7
	install -m 0755 $(B)/lib/libcaret-agent.so $(B)/lib/libcaret-agent-tp.so \
		$(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(B)/bin/caret-agentctl $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 man/caret-agent.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8 \
		$(DESTDIR)$(SYSTEMD_UNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	install -m 0755 $(B)/bin/caretd $(B)/bin/caretctl $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 man/caretctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 man/caretd.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 0644 $(B)/systemd/caretd.service systemd/caretd.socket \
		$(DESTDIR)$(SYSTEMD_UNITDIR)/
	install -m 0644 systemd/caretd.sysusers $(DESTDIR)$(SYSUSERSDIR)/caretd.conf
	$(MAKE) install-standin

$(B)/systemd/caretd.service: systemd/caretd.service.in
	@mkdir -p $(dir $@)
	sed 's|@BINDIR@|$(PREFIX)/bin|g' $< > $@

all: $(B)/systemd/caretd.service

clean:
	rm -rf build build-san

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
