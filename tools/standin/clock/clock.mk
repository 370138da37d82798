# caret-standin-clock (tools/standin/clock/clock_pub.c): a /clock
# publisher over either RMW's DDS, for `caretctl record -c`. Included by
# the top-level Makefile after standin.mk (STANDIN_CXXFLAGS, PKG_FASTDDS)
# and the ros_clock.idl rules.
$(B)/obj/tools/standin/clock/clock_pub.o: $(B)/gen/ros_clock.h
$(B)/obj/standin/clock/clock_pub_fastdds.o: tools/standin/clock/clock_pub_fastdds.cpp
	@mkdir -p $(@D)
	$(CXX) $(STANDIN_CXXFLAGS) $(STANDIN_DEPFLAGS) -c $< -o $@
-include $(B)/obj/standin/clock/clock_pub_fastdds.d
$(B)/bin/caret-standin-clock: $(call obj,tools/standin/clock/clock_pub.c) \
		$(B)/obj/standin/clock/clock_pub_fastdds.o $(B)/obj/gen/ros_clock.o
	@mkdir -p $(@D)
	$(CXX) $(LDFLAGS) -o $@ $^ $(PKG_DDS) $(PKG_FASTDDS)
all: $(B)/bin/caret-standin-clock
