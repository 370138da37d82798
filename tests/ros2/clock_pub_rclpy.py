# SPDX-License-Identifier: Apache-2.0
"""A real ROS 2 /clock publisher in rclpy (a simulator's, or `ros2 bag play
--clock`'s): rosgraph_msgs/msg/Clock on /clock with rclcpp's ClockQoS
(rclcpp qos.cpp: the sensor-data profile with depth 1), sim time starting at
--start seconds and advancing --speed sim seconds per wall second, one
message every 1/--rate s, for --duration s. Prints "ready pid=N", then each
published stamp ("stamp NS"), for test_record_clock_real.py."""
import argparse
import os
import time

import rclpy
from rclpy.qos import QoSProfile, qos_profile_sensor_data
from rosgraph_msgs.msg import Clock

ap = argparse.ArgumentParser()
ap.add_argument("--start", type=float, default=100.0)
ap.add_argument("--speed", type=float, default=3.0)
ap.add_argument("--rate", type=float, default=50.0)
ap.add_argument("--duration", type=float, default=30.0)
a = ap.parse_args()
rclpy.init()
node = rclpy.create_node("sim_clock")
qos = QoSProfile(depth=1, reliability=qos_profile_sensor_data.reliability,
                 durability=qos_profile_sensor_data.durability,
                 history=qos_profile_sensor_data.history)
pub = node.create_publisher(Clock, "/clock", qos)
print("ready pid=%d" % os.getpid(), flush=True)
t0 = time.monotonic()
k = 0
while time.monotonic() - t0 < a.duration:
    ns = int((a.start + (time.monotonic() - t0) * a.speed) * 1e9)
    m = Clock()
    m.clock.sec, m.clock.nanosec = ns // 10**9, ns % 10**9
    pub.publish(m)
    print("stamp %d" % ns, flush=True)
    k += 1
    delay = t0 + k / a.rate - time.monotonic()
    if delay > 0:
        time.sleep(delay)
node.destroy_node()
rclpy.shutdown()
