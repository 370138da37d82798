# Micro-benchmarks P1-P3 (bench/micro/micro.py drives them). Included by
# the top-level Makefile, which provides B, CC, CFLAGS, LDFLAGS, PKG_UST and
# the obj function; adds nothing to `all`.
MICRO_SRC := bench/micro/microbench.c bench/micro/micro_hooks.c bench/micro/micro_capture.c \
	bench/micro/micro_alt.c bench/micro/micro_rt.c bench/micro/micro_tp.c
MICRO_UST_CFLAGS ?= $(shell pkg-config --cflags lttng-ust 2>/dev/null)

$(call obj,$(MICRO_SRC)): CFLAGS += $(MICRO_UST_CFLAGS)

# Linked by name against libtracetools.so, like a ROS 2 node, so a
# preloaded agent interposes its ros_trace_* functions.
$(B)/bench/caret-microbench: $(call obj,$(MICRO_SRC)) $(B)/lib/libcaretshm.a $(B)/lib/libcaretutil.a \
		$(B)/lib/libtracetools.so $(B)/lib/libcaret-agent.so \
		$(B)/lib/libcaret-agent-tp.so
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(call obj,$(MICRO_SRC)) $(B)/lib/libcaretshm.a $(B)/lib/libcaretutil.a $(LDFLAGS) \
		-L$(B)/lib -ltracetools $(PKG_UST) -ldl -lpthread \
		-Wl,-rpath,'$$ORIGIN/../lib'
