# SPDX-License-Identifier: Apache-2.0
"""`caretctl record -l` is caretd's plan (issue 32's first "Done when",
issue 33 L1): for plain, rotating and flight-recorder recordings, with and
without filters, contexts and -u lists, the channels (name, domain,
buffers, mode, sub-buffer size and count, output), the event rules (names,
types, filters) that `lttng list SESSION` then shows for the session made
are exactly the plan's, and the context fields of the events recorded are
exactly the plan's contexts (`lttng list` does not show contexts). caretd's
own defaults (--subbuffer-count) and a flight recorder's ring geometry
are the plan's too, which caretctl alone could not know: without caretd,
-l says so."""
import json
import os
import socket
import subprocess
import threading
import time
import unittest
import xml.etree.ElementTree as ET

from harness import CARETCTL, SystemTest, read_trace, wait_line

NS = {"mi": "https://lttng.org/xml/ns/lttng-mi"}


def mi_session(name):
    """`lttng --mi xml list NAME`: {channel: {...}} of every domain."""
    r = subprocess.run(["lttng", "--mi", "xml", "list", name], capture_output=True, text=True,
                       timeout=60)
    if r.returncode != 0:
        raise AssertionError("lttng list %s: %s%s" % (name, r.stdout, r.stderr))
    root = ET.fromstring(r.stdout)
    sess = root.find(".//mi:session", NS)
    out = {"snapshot_mode": sess.findtext("mi:snapshot_mode", namespaces=NS) == "1",
           "channels": {}}
    for dom in sess.findall("mi:domains/mi:domain", NS):
        dtype = dom.findtext("mi:type", namespaces=NS)
        buffers = dom.findtext("mi:buffer_type", namespaces=NS)
        for ch in dom.findall("mi:channels/mi:channel", NS):
            a = ch.find("mi:attributes", NS)
            events = []
            for ev in ch.findall("mi:events/mi:event", NS):
                events.append((ev.findtext("mi:name", namespaces=NS),
                               ev.findtext("mi:type", namespaces=NS).lower(),
                               ev.findtext("mi:filter_expression", namespaces=NS)))
            out["channels"][ch.findtext("mi:name", namespaces=NS)] = {
                "domain": {"UST": "ust", "KERNEL": "kernel"}[dtype],
                "buffers": {"PER_UID": "per-uid", "GLOBAL": "global"}[buffers],
                "mode": a.findtext("mi:overwrite_mode", namespaces=NS).lower(),
                "subbuf_size": int(a.findtext("mi:subbuffer_size", namespaces=NS)),
                "subbuf_count": int(a.findtext("mi:subbuffer_count", namespaces=NS)),
                "output": a.findtext("mi:output_type", namespaces=NS).lower(),
                "enabled": ch.findtext("mi:enabled", namespaces=NS) == "true",
                "events": sorted(events, key=str),
            }
    return out


def plan_channels(plan):
    """The plan's channels in mi_session()'s shape."""
    out = {}
    for ch in plan["channels"]:
        out[ch["name"]] = {k: ch[k] for k in ("domain", "buffers", "mode", "subbuf_size",
                                              "subbuf_count", "output", "enabled")}
        out[ch["name"]]["events"] = sorted(((e["name"], e["type"], e["filter"])
                                            for e in ch["events"]), key=str)
    return out


class RecordPlanTest(SystemTest):
    def setUp(self):
        super().setUp()
        # caretd's own default, which caretctl alone cannot know
        self.c.caretd("--subbuffer-count", "8")
        self.procs = self.system(3)

    def plan(self, *args):
        r = self.c.caretctl("record", "-l", "--json", "-p", self.traces, *args)
        (o,) = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual((o["v"], o["type"], o["cmd"], o["caretd"]), (1, "result", "record", True))
        return o["plan"]

    def made(self, name, *args, armed=False):
        """Records NAME with args (armed: waiting for Enter, else at once);
        the `lttng list` of its session and the recording."""
        if armed:
            rec = self.c.arm("-p", self.traces, "-s", name, *args)
        else:
            rec = self.c.caretctl("record", "--immediate", "-p", self.traces, "-s", name,
                                  *args, background=True)
            wait_line(rec, r"processes recording", timeout=60)
        return mi_session(name), rec

    def stopped(self, name, rec):
        r = self.c.caretctl("stop", "-s", name, "--json")
        if hasattr(rec, "finish"):
            rec.finish(timeout=60)
        else:
            rec.stdin.close()
            rec.stdout.read()
            rec.stdout.close()
            rec.wait(timeout=60)
        return json.loads(r.stdout.strip().splitlines()[-1])

    def contexts_recorded(self, path):
        """The context fields of the events in the trace at path, by
        domain (UST events are provider:name)."""
        fields = {}
        for e in read_trace(path):
            fields.setdefault("ust" if ":" in e.name else "kernel", set()).update(e.ctx)
        return fields

    def compare(self, name, *args, armed=False, snapshot=False):
        plan = self.plan("-s", name, *args, *(() if armed else ("--immediate",)))
        self.assertEqual(plan["session"], name)
        got, rec = self.made(name, *args, armed=armed)
        try:
            self.assertEqual(got["snapshot_mode"], plan["snapshot_mode"], args)
            self.assertEqual(got["channels"], plan_channels(plan), args)
            if armed:
                rec.stdin.write("\n")
                rec.stdin.flush()
                out = ""
                while "press Enter or Ctrl-C to stop" not in out:
                    line = rec.stdout.readline()
                    self.assertTrue(line, "record ended: " + out)
                    out += line
            time.sleep(0.5)
            path = os.path.join(self.traces, name)
            if snapshot:
                r = self.c.caretctl("snapshot", "--json", name, timeout=180)
                path = json.loads(r.stdout.strip().splitlines()[-1])["path"]
        finally:
            self.stopped(name, rec)
        # `lttng list` shows no contexts: the events recorded carry them,
        # as LTTng names the fields
        got = self.contexts_recorded(path)
        self.assertIn("ust", got, "no UST event recorded in %s" % path)
        for ch in plan["channels"]:
            if ch["domain"] in got:
                want = {c.replace(":", "_").replace("-", "_") for c in ch["contexts"]}
                self.assertEqual(got[ch["domain"]], want, (ch["name"], args))
        return plan

    def test_plain(self):
        plan = self.compare("plain")
        ch = plan["channels"][0]
        self.assertEqual((ch["mode"], ch["subbuf_count"], ch["subbuf_size"]),
                         ("discard", 8, 524288))  # caretd's --subbuffer-count
        self.assertEqual([e["name"] for e in ch["events"]], ["ros*", "agnocast*"])

    def test_plain_filtered_with_contexts_and_events(self):
        plan = self.compare("filtered", "--select-nodes", "/pub1", "--context", "pthread_id",
                            "ip", "-u", "ros2:callback_start", "ros2:callback_end",
                            "--subbuffer-size-ust", "64K", "--subbuffer-count", "16")
        self.assertEqual(plan["select_nodes"], "/pub1")
        ch = plan["channels"][0]
        self.assertEqual(ch["contexts"], ["vpid", "vtid", "procname", "pthread_id", "ip"])
        self.assertEqual((ch["subbuf_size"], ch["subbuf_count"]), (65536, 16))

    def test_armed(self):
        self.compare("armed", "--ignore-topics", "/nothing", "--light", armed=True)

    def test_rotating(self):
        plan = self.compare("rotsize", "--rotate-size", "8M", "--keep", "3",
                            "--context", "pthread_id")
        self.assertEqual((plan["rotate_size"], plan["keep"]), (8 << 20, 3))
        plan = self.compare("rotevery", "--rotate-every", "2s", "--select-topics", "/chatter")
        self.assertEqual(plan["rotate_every_ms"], 2000)

    def test_flight_recorder(self):
        plan = self.compare("flight", "--snapshot-size", "1M", "--select-nodes", "/sub0:/pub1",
                            "--context", "ip", snapshot=True)
        self.assertTrue(plan["snapshot_mode"])
        ch = plan["channels"][0]
        # the ring caretd divides, not caretctl's guess of 4 x 512 KiB discard
        self.assertEqual(ch["mode"], "overwrite")
        self.assertEqual(ch["subbuf_size"] * ch["subbuf_count"], 1 << 20)
        # and the text says the same
        r = self.c.caretctl("record", "-l", "-p", self.traces, "--snapshot-size", "1M")
        self.assertIn("UST channel caret: per-UID buffers, overwrite mode, %d sub-buffers of "
                      "%d bytes per CPU" % (ch["subbuf_count"], ch["subbuf_size"]), r.stdout)
        self.assertIn("flight recorder: a ring of 1048576 bytes per CPU", r.stdout)

    def test_kernel(self):
        args = ("-k", "sched_switch", "--syscall", "openat", "--context", "pid", "vpid")
        plan = self.plan("-s", "kern", "--immediate", *args)
        kch = [c for c in plan["channels"] if c["domain"] == "kernel"]
        self.assertEqual(len(kch), 1)
        self.assertEqual(sorted((e["name"], e["type"]) for e in kch[0]["events"]),
                         [("openat", "syscall"), ("sched_switch", "tracepoint")])
        self.assertEqual(kch[0]["contexts"], ["vpid", "vtid", "procname", "pid"])
        # a kernel channel needs lttng-modules and a session daemon with
        # the kernel tracer, which isolated.sh's may lack
        r = self.c.caretctl("record", "--immediate", "--duration", "1", "-p", self.traces,
                            "-s", "kprobe", *args, check=False)
        if r.returncode != 0:
            self.skipTest("no kernel recording here: " + r.stderr.strip().splitlines()[-1])
        self.compare("kern", *args)

    def test_without_caretd_it_says_so(self):
        sock = os.path.join(self.c.tmp, "none.sock")
        r = subprocess.run([CARETCTL, "--socket", sock, "record", "-l", "--snapshot-size", "1G"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("caretd is not reachable", r.stderr)
        self.assertIn("not known", r.stdout)
        self.assertNotIn("discard mode", r.stdout)


class OlderCaretdTest(unittest.TestCase):
    """A caretd older than the plan reads `record -l`'s request as a
    record: caretctl stops the session it made and fails."""

    def test_its_session_is_stopped(self):
        d = os.path.join(os.environ.get("TMPDIR", "/tmp"), "plan-%d" % os.getpid())
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "old.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(2)
        got = []

        def serve():
            for reply in ({"v": 1, "type": "result", "session": "s1", "path": "/t/s1"},
                          {"v": 1, "type": "result", "session": "s1", "path": "/t/s1",
                           "channels": []}):
                c, _ = srv.accept()
                with c, c.makefile("rw") as f:
                    got.append(json.loads(f.readline()))
                    f.write(json.dumps(reply) + "\n")
                    f.flush()

        t = threading.Thread(target=serve, daemon=True)
        t.start()
        try:
            r = subprocess.run([CARETCTL, "--socket", path, "record", "-l", "-s", "s1"],
                               capture_output=True, text=True, timeout=60)
            t.join(10)
        finally:
            srv.close()
            os.unlink(path)
            os.rmdir(d)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("started recording s1: stopping it", r.stderr)
        self.assertTrue(got[0]["plan"], got)
        self.assertEqual((got[1]["cmd"], got[1].get("session")), ("stop", "s1"), got)


if __name__ == "__main__":
    unittest.main()
