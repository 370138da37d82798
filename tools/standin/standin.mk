# ROS 2 stand-in: libtracetools.so, librclcpp.so and the caret-standin
# workload. Included by the top-level Makefile, which provides B, CC,
# CFLAGS, LDFLAGS, PKG_UST and PKG_DDS.
PREFIX ?= /usr/local
IDLC   ?= idlc
STANDIN_UST_CFLAGS ?= $(shell pkg-config --cflags lttng-ust 2>/dev/null)
# Header dependencies, unless the top-level CFLAGS already asks for them.
STANDIN_DEPFLAGS := $(if $(filter -MMD,$(CFLAGS)),,-MMD -MP)

STANDIN_DIR := tools/standin
STANDIN_OBJ := $(B)/obj/standin
STANDIN_GEN := $(B)/gen

STANDIN_LIBTT     := $(B)/lib/libtracetools.so
STANDIN_LIBRCLCPP := $(B)/lib/librclcpp.so
STANDIN_BIN       := $(B)/bin/caret-standin

STANDIN_TT_OBJS := $(STANDIN_OBJ)/tracetools/tracetools.o
STANDIN_RCLCPP_OBJS := $(patsubst $(STANDIN_DIR)/%.c,$(STANDIN_OBJ)/%.o,\
	$(wildcard $(STANDIN_DIR)/rclcpp/*.c))
STANDIN_WL_OBJS := $(patsubst $(STANDIN_DIR)/%.c,$(STANDIN_OBJ)/%.o,\
	$(wildcard $(STANDIN_DIR)/workload/*.c))
STANDIN_MSG_OBJ := $(STANDIN_OBJ)/gen/standin_msg.o
STANDIN_OBJS := $(STANDIN_TT_OBJS) $(STANDIN_RCLCPP_OBJS) $(STANDIN_WL_OBJS)

.PHONY: install-standin clean-standin
all: $(STANDIN_LIBTT) $(STANDIN_LIBRCLCPP) $(STANDIN_BIN)

# Static pattern rule: scoped to our objects, so it cannot collide with
# the other components' rules for $(B)/obj.
$(STANDIN_OBJS): $(STANDIN_OBJ)/%.o: $(STANDIN_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(STANDIN_XCFLAGS) $(STANDIN_DEPFLAGS) -c $< -o $@

$(STANDIN_TT_OBJS): STANDIN_XCFLAGS = $(STANDIN_UST_CFLAGS)

# The workload includes the generated type; the first build has no .d yet.
$(STANDIN_WL_OBJS): $(STANDIN_GEN)/standin_msg.h

# One idlc run writes both files; a two-target pattern rule is grouped.
$(STANDIN_GEN)/standin_%.c $(STANDIN_GEN)/standin_%.h: \
		$(STANDIN_DIR)/workload/standin_%.idl
	@mkdir -p $(@D)
	$(IDLC) -o $(STANDIN_GEN) $<

$(STANDIN_MSG_OBJ): $(STANDIN_GEN)/standin_msg.c $(STANDIN_GEN)/standin_msg.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(STANDIN_LIBTT): $(STANDIN_TT_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libtracetools.so -Wl,-z,defs $(LDFLAGS) \
		-o $@ $^ $(PKG_UST)

$(STANDIN_LIBRCLCPP): $(STANDIN_RCLCPP_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,librclcpp.so -Wl,-z,defs $(LDFLAGS) \
		-o $@ $^

# Linked by name (not path) so the binary resolves the libraries, and any
# preloaded agent, through the dynamic linker like a ROS 2 node would.
$(STANDIN_BIN): $(STANDIN_WL_OBJS) $(STANDIN_MSG_OBJ) $(STANDIN_LIBTT) \
		$(STANDIN_LIBRCLCPP)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(STANDIN_WL_OBJS) $(STANDIN_MSG_OBJ) \
		-L$(B)/lib -Wl,-rpath,'$$ORIGIN/../lib:$$ORIGIN/../lib/caretd/standin' \
		-ltracetools -lrclcpp $(PKG_DDS) -lpthread

# The stand-in libraries go to a private directory: installed next to the
# agent they could shadow a real ROS 2 libtracetools.so / librclcpp.so.
install-standin: $(STANDIN_LIBTT) $(STANDIN_LIBRCLCPP) $(STANDIN_BIN)
	install -d $(DESTDIR)$(PREFIX)/lib/caretd/standin $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(STANDIN_LIBTT) $(STANDIN_LIBRCLCPP) \
		$(DESTDIR)$(PREFIX)/lib/caretd/standin/
	install -m 0755 $(STANDIN_BIN) $(DESTDIR)$(PREFIX)/bin/

clean-standin:
	rm -rf $(STANDIN_OBJ) $(STANDIN_GEN)/standin_msg.[ch] \
		$(STANDIN_LIBTT) $(STANDIN_LIBRCLCPP) $(STANDIN_BIN)

-include $(STANDIN_OBJS:.o=.d)
