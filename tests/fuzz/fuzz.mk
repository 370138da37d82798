# Fuzzing (issues 14, 20): five targets in libFuzzer's interface over what
# other processes control: the segment validator (and name parser), the
# record walker, the control protocol's parsers (caretd's requests,
# caretctl's replies), caretctl check's metadata preflight and report
# decoder, and the DDS bridge's message decoders (CycloneDDS's CDR decoding
# of a received sample, then caretd's checks; user data and relay URLs).
# Seeds: tests/fuzz/corpus/<target>/.
#   make fuzz-smoke   deterministic mutation driver (tests/fuzz/driver.c),
#                     FUZZ_SMOKE_RUNS per target; part of `make check`
#                     (under ASan/UBSan in its SAN=1 stage)
#   make fuzz         clang libFuzzer + ASan/UBSan, FUZZ_RUNS (1,000,000)
#                     executions per target; prints the figures
FUZZ_TARGETS = segment records ctl check bridge
FUZZ_SMOKE_RUNS ?= 100000
FUZZ_RUNS ?= 1000000

FUZZ_SRC_segment = tests/fuzz/fuzz_segment.c
FUZZ_SRC_records = tests/fuzz/fuzz_records.c
# The same objects as check_commands links (the Makefile's CMD_SRC).
FUZZ_SRC_ctl = tests/fuzz/fuzz_ctl.c $(CMD_SRC)
# caretctl check: the metadata preflight and the reader child's answer.
FUZZ_SRC_check = tests/fuzz/fuzz_check.c tools/caretctl/check_wire.c
FUZZ_OBJ_ctl = $(B)/obj/gen/caret_msgs.o
FUZZ_LIBS_ctl = $(PKG_DAEMON) -ldl $(PKG_PCRE2)
FUZZ_SRC_bridge = tests/fuzz/fuzz_bridge.c daemon/bridge/bridge_msg.c $(REGEX_SRC) proto/caret_ctl_limits.c
FUZZ_OBJ_bridge = $(B)/obj/gen/caret_msgs.o
FUZZ_LIBS_bridge = $(PKG_DDS) $(PKG_PCRE2)
$(B)/obj/tests/fuzz/fuzz_bridge.o: $(B)/gen/caret_msgs.h

# The driver build, any compiler.
define fuzz_driver
$(B)/fuzz/fuzz-$(1)-driver: $(call obj,tests/fuzz/driver.c $(FUZZ_SRC_$(1))) $(FUZZ_OBJ_$(1)) \
		$(SHM_LIBS)
	@mkdir -p $$(dir $$@)
	$$(CC) -o $$@ $$^ $$(LDFLAGS) $(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_driver,$(t))))

.PHONY: fuzz-smoke fuzz fuzz-run
# In its own namespaces (tools/isolated.sh): the ctl target links caretd's
# LTTng code, which must never reach the machine's session daemon.
fuzz-smoke: $(foreach t,$(FUZZ_TARGETS),$(B)/fuzz/fuzz-$(t)-driver)
	@tools/isolated.sh sh -c 'set -e; for t in $(FUZZ_TARGETS); do \
		ASAN_OPTIONS=detect_leaks=1 $(B)/fuzz/fuzz-$$t-driver tests/fuzz/corpus/$$t \
			$(FUZZ_SMOKE_RUNS) 1; \
	done'

# The libFuzzer build (FUZZ=1: its own tree and flags, set in the Makefile).
ifeq ($(FUZZ),1)
define fuzz_lf
$(B)/fuzz/fuzz-$(1): $(call obj,$(FUZZ_SRC_$(1))) $(FUZZ_OBJ_$(1)) $(SHM_LIBS)
	@mkdir -p $$(dir $$@)
	$$(CC) -o $$@ $$^ $$(LDFLAGS) $(FUZZ_LIBS_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_lf,$(t))))
endif

fuzz:
	$(MAKE) FUZZ=1 fuzz-run

# Each target runs on a scratch copy of its seeds (new inputs stay out of
# the tree); libFuzzer's "Done N runs in S second(s)" line is the figure.
fuzz-run: $(foreach t,$(FUZZ_TARGETS),$(B)/fuzz/fuzz-$(t))
	@set -e; for t in $(FUZZ_TARGETS); do \
		work=$(B)/fuzz/corpus-$$t; rm -rf $$work; mkdir -p $$work; \
		$(B)/fuzz/fuzz-$$t -runs=$(FUZZ_RUNS) -max_len=16384 -seed=1 -print_final_stats=1 \
			$$work tests/fuzz/corpus/$$t > $(B)/fuzz/$$t.log 2>&1 \
			|| { tail -40 $(B)/fuzz/$$t.log; echo "fuzz $$t: CRASH"; exit 1; }; \
		echo "fuzz $$t: $$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' $(B)/fuzz/$$t.log)," \
			"$$(grep -o 'stat::number_of_executed_units: *[0-9]*' $(B)/fuzz/$$t.log | grep -o '[0-9]*$$') executions," \
			"$$(grep -o 'stat::average_exec_per_sec: *[0-9]*' $(B)/fuzz/$$t.log | grep -o '[0-9]*$$')/s, no crash"; \
	done
