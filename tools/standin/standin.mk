# ROS 2 stand-in, built once per distribution (humble, jazzy) into
# $(B)/lib/standin/<distro>/:
#   libtracetools.so            ros2_tracing's tracetools (C)
#   librclcpp.so                rclcpp classes with the real layouts (C++)
#   librmw_implementation.so    loads librmw_<x>.so with dlopen(RTLD_LOCAL)
#   librmw_cyclonedds_cpp.so    rmw over CycloneDDS (C)
#   librmw_fastrtps_cpp.so      rmw over Fast DDS 2.9 (C++)
#   libstandin_rclpy.so         the workload as a python-like extension
# and the programs $(B)/bin/caret-standin (jazzy), caret-standin-humble and
# caret-standin-py (the python-like loader). Included by the top-level
# Makefile, which provides B, CC, CFLAGS, LDFLAGS, PKG_UST and PKG_DDS.
PREFIX ?= /usr/local
CXX    ?= g++
STANDIN_UST_CFLAGS ?= $(shell pkg-config --cflags lttng-ust 2>/dev/null)
# Header dependencies, unless the top-level CFLAGS already asks for them.
STANDIN_DEPFLAGS := $(if $(filter -MMD,$(CFLAGS)),,-MMD -MP)
# The C flags (warnings, sanitizers, include paths) in C++ dialect.
STANDIN_CXXFLAGS = $(filter-out -std=%,$(CFLAGS)) -std=gnu++17
PKG_FASTDDS = -lfastrtps -lfastcdr

STANDIN_DIR := tools/standin
STANDIN_DISTROS := humble jazzy
STANDIN_PY  := $(B)/bin/caret-standin-py

# Installed next to nothing else: next to the agent they could shadow a real
# ROS 2 libtracetools.so / librclcpp.so.
STANDIN_INSTALL_LIB = $(PREFIX)/lib/caretd/standin

STANDIN_WL_SRC := $(filter-out %/exe_main.c %/py_host.c,\
	$(wildcard $(STANDIN_DIR)/workload/*.c))

.PHONY: install-standin uninstall-standin clean-standin

# $(1): distribution, $(2): executable name.
define STANDIN_FLAVOUR
STANDIN_OBJ_$(1) := $(B)/obj/standin/$(1)
STANDIN_LIB_$(1) := $(B)/lib/standin/$(1)
STANDIN_DEF_$(1) := $(if $(filter humble,$(1)),-DSTANDIN_HUMBLE)
STANDIN_TT_O_$(1) := $$(STANDIN_OBJ_$(1))/tracetools/tracetools.o
STANDIN_C_O_$(1) := $$(patsubst $(STANDIN_DIR)/%.c,$$(STANDIN_OBJ_$(1))/%.o,\
	$(STANDIN_WL_SRC) $(STANDIN_DIR)/workload/exe_main.c \
	$(STANDIN_DIR)/rmw/rmw_implementation.c $(STANDIN_DIR)/rmw/rmw_cyclonedds.c \
	$(STANDIN_DIR)/rmw/cdds_serdata.c $(STANDIN_DIR)/rmw/cdds_service.c)
STANDIN_CXX_O_$(1) := $$(patsubst $(STANDIN_DIR)/%.cpp,$$(STANDIN_OBJ_$(1))/%.o,\
	$(wildcard $(STANDIN_DIR)/rclcpp/*.cpp) $(STANDIN_DIR)/rmw/rmw_fastrtps.cpp \
	$(STANDIN_DIR)/rmw/rmw_fastrtps_service.cpp)
STANDIN_WL_O_$(1) := $$(patsubst $(STANDIN_DIR)/%.c,$$(STANDIN_OBJ_$(1))/%.o,$(STANDIN_WL_SRC))
STANDIN_LIBS_$(1) := $$(addprefix $$(STANDIN_LIB_$(1))/,libtracetools.so librclcpp.so \
	librmw_implementation.so librmw_cyclonedds_cpp.so librmw_fastrtps_cpp.so \
	libstandin_rclpy.so)
STANDIN_BIN_$(1) := $(B)/bin/$(2)

all: $$(STANDIN_LIBS_$(1)) $$(STANDIN_BIN_$(1))

$$(STANDIN_TT_O_$(1)) $$(STANDIN_C_O_$(1)): $$(STANDIN_OBJ_$(1))/%.o: $(STANDIN_DIR)/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(STANDIN_DEF_$(1)) $$(STANDIN_XCFLAGS) $$(STANDIN_DEPFLAGS) -c $$< -o $$@

$$(STANDIN_CXX_O_$(1)): $$(STANDIN_OBJ_$(1))/%.o: $(STANDIN_DIR)/%.cpp
	@mkdir -p $$(@D)
	$$(CXX) $$(STANDIN_CXXFLAGS) $$(STANDIN_DEF_$(1)) $$(STANDIN_DEPFLAGS) -c $$< -o $$@

$$(STANDIN_TT_O_$(1)): STANDIN_XCFLAGS = $$(STANDIN_UST_CFLAGS)

$$(STANDIN_LIB_$(1))/libtracetools.so: $$(STANDIN_TT_O_$(1))
	@mkdir -p $$(@D)
	$$(CC) -shared -Wl,-soname,libtracetools.so -Wl,-z,defs $$(LDFLAGS) -o $$@ $$^ $$(PKG_UST)

$$(STANDIN_LIB_$(1))/librclcpp.so: $$(filter $$(STANDIN_OBJ_$(1))/rclcpp/%,$$(STANDIN_CXX_O_$(1)))
	@mkdir -p $$(@D)
	$$(CXX) -shared -Wl,-soname,librclcpp.so -Wl,-z,defs $$(LDFLAGS) -o $$@ $$^ -lpthread

$$(STANDIN_LIB_$(1))/librmw_implementation.so: $$(STANDIN_OBJ_$(1))/rmw/rmw_implementation.o
	@mkdir -p $$(@D)
	$$(CC) -shared -Wl,-soname,librmw_implementation.so -Wl,-z,defs $$(LDFLAGS) \
		-o $$@ $$^ -ldl -lpthread -Wl,-rpath,'$$$$ORIGIN'

$$(STANDIN_LIB_$(1))/librmw_cyclonedds_cpp.so: $$(STANDIN_OBJ_$(1))/rmw/rmw_cyclonedds.o \
		$$(STANDIN_OBJ_$(1))/rmw/cdds_serdata.o $$(STANDIN_OBJ_$(1))/rmw/cdds_service.o \
		$$(STANDIN_LIB_$(1))/libtracetools.so
	@mkdir -p $$(@D)
	$$(CC) -shared -Wl,-soname,librmw_cyclonedds_cpp.so -Wl,-z,defs $$(LDFLAGS) -o $$@ \
		$$(filter %.o,$$^) -L$$(STANDIN_LIB_$(1)) -ltracetools $$(PKG_DDS) \
		-Wl,-rpath,'$$$$ORIGIN'

$$(STANDIN_LIB_$(1))/librmw_fastrtps_cpp.so: $$(STANDIN_OBJ_$(1))/rmw/rmw_fastrtps.o \
		$$(STANDIN_OBJ_$(1))/rmw/rmw_fastrtps_service.o \
		$$(STANDIN_LIB_$(1))/libtracetools.so
	@mkdir -p $$(@D)
	$$(CXX) -shared -Wl,-soname,librmw_fastrtps_cpp.so -Wl,-z,defs $$(LDFLAGS) -o $$@ \
		$$(filter %.o,$$^) -L$$(STANDIN_LIB_$(1)) -ltracetools $$(PKG_FASTDDS) \
		-Wl,-rpath,'$$$$ORIGIN'

# The ROS libraries linked by name, so they (and any preloaded agent) are
# resolved by the dynamic linker as in a ROS 2 node; no DDS library: the
# rmw layer brings it in, in local scope.
STANDIN_NODE_LIBS_$(1) = -L$$(STANDIN_LIB_$(1)) -ltracetools -lrclcpp -lrmw_implementation -lpthread

$$(STANDIN_LIB_$(1))/libstandin_rclpy.so: $$(STANDIN_WL_O_$(1)) $$(STANDIN_LIB_$(1))/libtracetools.so \
		$$(STANDIN_LIB_$(1))/librclcpp.so $$(STANDIN_LIB_$(1))/librmw_implementation.so
	@mkdir -p $$(@D)
	$$(CC) -shared -Wl,-soname,libstandin_rclpy.so -Wl,-z,defs $$(LDFLAGS) -o $$@ \
		$$(STANDIN_WL_O_$(1)) $$(STANDIN_NODE_LIBS_$(1)) -Wl,-rpath,'$$$$ORIGIN'

$$(STANDIN_BIN_$(1)): $$(STANDIN_WL_O_$(1)) $$(STANDIN_OBJ_$(1))/workload/exe_main.o \
		$$(STANDIN_LIB_$(1))/libtracetools.so $$(STANDIN_LIB_$(1))/librclcpp.so \
		$$(STANDIN_LIB_$(1))/librmw_implementation.so
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(STANDIN_NODE_LIBS_$(1)) \
		-Wl,-rpath,'$$$$ORIGIN/../lib/standin/$(1):$$$$ORIGIN/../lib/caretd/standin/$(1)'

-include $$(STANDIN_TT_O_$(1):.o=.d) $$(STANDIN_C_O_$(1):.o=.d) $$(STANDIN_CXX_O_$(1):.o=.d)
endef

$(eval $(call STANDIN_FLAVOUR,humble,caret-standin-humble))
$(eval $(call STANDIN_FLAVOUR,jazzy,caret-standin))

$(B)/obj/standin/py_host.o: $(STANDIN_DIR)/workload/py_host.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(STANDIN_DEPFLAGS) -c $< -o $@

# Links no ROS library at all, like the python interpreter.
$(STANDIN_PY): $(B)/obj/standin/py_host.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ -ldl

# Other programs (bench, tests/forker) link the jazzy tracetools as
# $(B)/lib/libtracetools.so.
$(B)/lib/libtracetools.so: $(B)/lib/standin/jazzy/libtracetools.so
	ln -sf standin/jazzy/libtracetools.so $@

all: $(STANDIN_PY) $(B)/lib/libtracetools.so

install-standin: all
	for d in $(STANDIN_DISTROS); do \
		install -d $(DESTDIR)$(STANDIN_INSTALL_LIB)/$$d && \
		install -m 0755 $(B)/lib/standin/$$d/*.so $(DESTDIR)$(STANDIN_INSTALL_LIB)/$$d/ \
		|| exit 1; \
	done
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(B)/bin/caret-standin $(B)/bin/caret-standin-humble $(STANDIN_PY) \
		$(B)/bin/caret-standin-clock $(DESTDIR)$(PREFIX)/bin/

# Everything install-standin put, and its directories if left empty.
uninstall-standin:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,caret-standin caret-standin-humble $(notdir $(STANDIN_PY)) \
		caret-standin-clock)
	for d in $(STANDIN_DISTROS); do \
		rm -f $(DESTDIR)$(STANDIN_INSTALL_LIB)/$$d/*.so; \
		rmdir $(DESTDIR)$(STANDIN_INSTALL_LIB)/$$d 2>/dev/null || true; \
	done
	rmdir $(DESTDIR)$(STANDIN_INSTALL_LIB) 2>/dev/null || true

clean-standin:
	rm -rf $(B)/obj/standin $(B)/lib/standin \
		$(B)/lib/libtracetools.so $(B)/bin/caret-standin $(B)/bin/caret-standin-humble \
		$(STANDIN_PY)

-include $(B)/obj/standin/py_host.d
