# SPDX-License-Identifier: Apache-2.0
"""The real-ROS tests' Python application (tests/ros2/test_rclpy.py): a talker
and a listener node in one rclpy process, on one executor. The talker
publishes std_msgs/String from a timer and serves example_interfaces'
AddTwoInts; the listener subscribes and calls the service from a second
timer. Prints "ready pid=N" once every entity exists and, on SIGTERM or
SIGINT, its counters:
  published=N taken=N failed=N
  requests=N served=N responses=N answered=N failed=N
(the same lines as tests/ros2/apps/caret_real_app.cpp, so the tests read
both the same way).

  caret_rclpy_app.py [--topic-prefix P] [--period-ms N] [--executor single|multi]
                     [--wait-timeout S]

--wait-timeout S spins with spin_once(timeout_sec=S): rclpy then makes an
rcl timer, one more rcl_timer_init, for every wait (init records made all
the time, also while a late recording replays the cache).
"""
import argparse
import os
import signal
import sys

import rclpy
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, DurabilityPolicy, HistoryPolicy

from example_interfaces.srv import AddTwoInts
from std_msgs.msg import String

# Reliable and keep-all-ish: a message the listener misses would be a take
# the test cannot bind, not a fault of the tracer.
QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                 durability=DurabilityPolicy.VOLATILE, history=HistoryPolicy.KEEP_LAST)


class Counts:
    published = taken = failed = 0
    requests = served = responses = answered = failed_calls = 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--topic-prefix", default="py")
    ap.add_argument("--period-ms", type=int, default=20)
    ap.add_argument("--executor", choices=("single", "multi"), default="single")
    ap.add_argument("--wait-timeout", type=float, default=0.0)
    a = ap.parse_args()
    c = Counts()
    stop = []

    # Our own handlers: the counters are printed after a clean shutdown.
    rclpy.init(signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *_: stop.append(1))

    talker = Node("py_talker")
    listener = Node("py_listener")
    topic = "/%s/chatter" % a.topic_prefix
    service = "/%s/add_two_ints" % a.topic_prefix
    pub = talker.create_publisher(String, topic, QOS)

    def tick():
        msg = String()
        msg.data = "hello %d" % c.published
        try:
            pub.publish(msg)
            c.published += 1
        except Exception as e:  # noqa: BLE001 - counted, shown at the end
            c.failed += 1
            print("publish failed: %s" % e, file=sys.stderr, flush=True)

    talker.create_timer(a.period_ms / 1000.0, tick, callback_group=MutuallyExclusiveCallbackGroup())

    def add(req, resp):
        c.served += 1
        resp.sum = req.a + req.b
        return resp

    talker.create_service(AddTwoInts, service, add, callback_group=ReentrantCallbackGroup())

    def on_msg(msg):
        if msg.data.startswith("hello "):
            c.taken += 1

    listener.create_subscription(String, topic, on_msg, QOS)
    client = listener.create_client(AddTwoInts, service, callback_group=ReentrantCallbackGroup())

    def on_response(fut):
        c.responses += 1
        try:
            r = fut.result()
            if r is not None and r.sum == 3:
                c.answered += 1
            else:
                c.failed_calls += 1
        except Exception as e:  # noqa: BLE001
            c.failed_calls += 1
            print("call failed: %s" % e, file=sys.stderr, flush=True)

    def call():
        if not client.service_is_ready():
            return
        c.requests += 1
        client.call_async(AddTwoInts.Request(a=1, b=2)).add_done_callback(on_response)

    listener.create_timer(5 * a.period_ms / 1000.0, call)

    ex = SingleThreadedExecutor() if a.executor == "single" else MultiThreadedExecutor(2)
    ex.add_node(talker)
    ex.add_node(listener)
    print("ready pid=%d" % os.getpid(), flush=True)
    # No timeout unless asked: rclpy makes an rcl timer for every wait with
    # one (Executor._wait_for_ready_callbacks), an rcl_timer_init each time.
    # The talker's timer wakes the wait often enough for the signal handler
    # to run.
    while not stop:
        if a.wait_timeout > 0:
            ex.spin_once(timeout_sec=a.wait_timeout)
        else:
            ex.spin_once()
    print("published=%d taken=%d failed=%d" % (c.published, c.taken, c.failed), flush=True)
    print("requests=%d served=%d responses=%d answered=%d failed=%d" %
          (c.requests, c.served, c.responses, c.answered, c.failed_calls), flush=True)
    ex.shutdown()
    talker.destroy_node()
    listener.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
