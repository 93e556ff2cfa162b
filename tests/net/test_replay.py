"""Replays on an affect team's network (docs/network.md, section 4): an independent Python
Zenoh client captures the signed traffic of one launch and replays it into the next launch
with the same keys, and, within a launch, after a robot was killed and started again.
Every robot refuses every replayed message with its reason, the restarted robot among them
(what was said before it started, fresh as it is), and none changes a decision.
A sender whose clock is skewed just inside the freshness window is heard; just outside,
in the past or the future, it is refused.

scripts/test.sh runs this with the project's venv (.tools/netpy) after building `affect`.
Timing: the robots run at 20 times the wall clock; each replay is timed against the robots'
epoch with seconds of margin before they stop, and the window is wide against loopback
delivery (milliseconds), so a loaded machine slows the test without failing it.
"""

import json
import math
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import zenoh
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from test_interop import (
    AFFECT,
    EXAMPLE,
    ROOT,
    SPEED,
    TEAM,
    chunk,
    events,
    free_port,
    load_secret,
    make_keys,
    peer_config,
    start_robot,
)

# Robots start ticking this long after they are started: time to open their sessions.
LEAD_MS = 4000.0
# The freshness window the robots of these tests use (wall ms).
WINDOW_MS = 3000.0
# A window longer than any of these tests: what is refused is refused as a replay, not as stale.
LONG_WINDOW_MS = 60000.0


def start(name, keys, hub, epoch_ms, trace, ticks, window_ms=None):
    extra = ["--freshness", str(window_ms)] if window_ms else []
    return start_robot(name, keys, free_port(), hub, epoch_ms, trace, ticks, args=extra)


def stop(procs, limit_s=120):
    try:
        for p in procs:
            p.wait(timeout=limit_s)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


class Capture:
    """Every sample of the team, as it went on the wire, with when it arrived (wall s)."""

    def __init__(self, session):
        self.samples = []
        self.lock = threading.Lock()
        self.sub = session.declare_subscriber(f"affect/v1/{TEAM}/**", self.on_sample)

    def on_sample(self, sample):
        attachment = sample.attachment.to_bytes() if sample.attachment else None
        with self.lock:
            self.samples.append(
                (time.time(), str(sample.key_expr), sample.payload.to_bytes(), attachment)
            )

    def taken(self, since=0.0, until=float("inf")):
        with self.lock:
            return [s for s in self.samples if since <= s[0] < until]


def replay(session, samples):
    """Puts the samples again exactly as they were (key, payload, signature), a few at a
    time so that no robot's refusals of one tick pass the thousand it keeps."""
    for i, (_, key, payload, attachment) in enumerate(samples):
        session.put(key, payload, attachment=attachment)
        if i % 50 == 49:
            time.sleep(0.2)


def sleep_until(t):
    time.sleep(max(0.0, t - time.time()))


def rejections(trace):
    return [e for e in events(trace) if e["ev"] == "rejected"]


def decisions(trace):
    return [
        e for e in events(trace)
        if e["ev"] == "recruit" and e["step"] in ("help_ignored", "help_accepted")
    ]


def helps_sent(trace):
    return sum(1 for e in events(trace) if e["ev"] == "msg" and e["kind"] == "HELP")


def sender(payload):
    return json.loads(payload)["from"]


def test_captured_traffic_is_refused_in_the_next_launch_and_after_a_restart():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        keys = make_keys(tmp)
        hub = free_port()
        session = zenoh.open(peer_config(f"tcp/127.0.0.1:{hub}"))
        names = ("UAV", "UGV#3", "UGV#4")

        # Launch 1: captured. The UAV meets its first possible mine at 82 s of world time
        # (4.1 s of wall time), so the capture holds HELPs, answers and poses.
        capture = Capture(session)
        epoch1 = time.time() * 1000.0 + LEAD_MS
        first = [
            start(n, keys, hub, epoch1, tmp / f"one-{chunk(n)}.jsonl", 160) for n in names
        ]
        stop(first)
        # What the robots sent before 90 s of world time: the replay puts each at that time
        # of the next launch, before anything else happens there.
        old = capture.taken(until=epoch1 / 1000.0 + 90.0 / SPEED)
        seen = {(s[1], s[2]) for s in old}
        assert sum(1 for s in old if s[1].endswith("/recruit")) > 0, "no recruitment captured"
        capture.sub.undeclare()

        # Launch 2: the same keys, a new epoch; launch 1's traffic replayed at its times.
        # Its robots take a window of a minute: nothing this test replays into launch 2 is
        # stale, so what refuses it is what makes a replay worthless, not its age.
        capture = Capture(session)
        epoch2 = time.time() * 1000.0 + LEAD_MS
        traces = {n: tmp / f"two-{chunk(n)}.jsonl" for n in names}
        second = {n: start(n, keys, hub, epoch2, traces[n], 240, LONG_WINDOW_MS) for n in names}
        for s in old:
            sleep_until(epoch2 / 1000.0 + (s[0] - epoch1 / 1000.0))
            session.put(s[1], s[2], attachment=s[3])

        # UGV#3 is killed at 100 s of world time and started again in the same launch.
        sleep_until(epoch2 / 1000.0 + 100.0 / SPEED)
        second["UGV#3"].kill()
        second["UGV#3"].wait()
        killed_at = time.time()
        first_process = max(
            json.loads(s[2])["instance"] for s in capture.taken() if sender(s[2]) == "UGV#3"
        )
        again_trace = tmp / "two-UGV-3-again.jsonl"
        again = start("UGV#3", keys, hub, epoch2, again_trace, 240, LONG_WINDOW_MS)
        # Once the new UGV#3 has rejoined (its new process is heard), everything launch 2
        # said before the kill (the killed UGV#3's own messages among them), replayed to
        # every robot: all of it fresh, and all of it sent before the new UGV#3 started.
        deadline = time.time() + 60
        while time.time() < deadline and not any(
            sender(s[2]) == "UGV#3" and json.loads(s[2])["instance"] > first_process
            for s in capture.taken(since=killed_at)
        ):
            time.sleep(0.05)
        replayed_at = time.time()
        assert replayed_at < epoch2 / 1000.0 + 200.0 / SPEED, (
            f"UGV#3 rejoined {replayed_at - killed_at:.1f} s after it was killed: too late "
            "for the replay before the robots stop (a loaded machine?)"
        )
        # (The capture hears the replay of launch 1 too: not again.)
        recent = [s for s in capture.taken(until=killed_at) if (s[1], s[2]) not in seen]
        replay(session, recent)
        stop(list(second.values()) + [again])
        capture.sub.undeclare()
        session.close()

        print(
            f"replayed {len(old)} messages of launch 1, {len(recent)} of launch 2 "
            f"{replayed_at - killed_at:.1f} s after the kill"
        )
        # Every robot of launch 2 refused every message of launch 1, as from before it.
        for n in names:
            trace = traces[n]
            refused = [
                e for e in rejections(trace) if "before this launch" in e["why"]
            ]
            assert len(refused) == len(old), (n, len(refused), len(old), rejections(trace)[:5])
        # Every robot refused every message replayed after the restart as a replay: the
        # robots still running as seen before (`not newer`) or of UGV#3's earlier process,
        # the restarted UGV#3 as of its earlier process or sent before it started.
        own_old = [s for s in recent if sender(s[2]) == "UGV#3"]
        assert own_old, "the killed UGV#3 sent nothing before it was killed"
        for n, trace in (
            ("UAV", traces["UAV"]),
            ("UGV#4", traces["UGV#4"]),
            ("UGV#3", again_trace),
        ):
            late = [
                e for e in rejections(trace) if "before this launch" not in e["why"]
            ]
            assert len(late) == len(recent), (n, len(late), len(recent), late[:5])
            whys = {e["why"].split(":")[0] for e in late}
            assert whys == {"replayed"}, (n, whys)
        restarted = [e["why"] for e in rejections(again_trace)]
        earlier = [w for w in restarted if "earlier process of UGV#3" in w]
        before_start = [w for w in restarted if w.endswith("ms before this process started")]
        seen_since = [w for w in restarted if w.endswith("not newer than the last message of its process")]
        assert len(earlier) == len(own_old), (len(earlier), len(own_old), restarted[:5])
        # The others' messages: sent before the new UGV#3 started (it saw none of them; its
        # earlier process may have acted on them), unless a newer message of the same
        # process on the same key reached it since it rejoined.
        assert len(before_start) + len(seen_since) == len(recent) - len(own_old), restarted[:5]
        assert before_start, restarted[:5]
        print(
            f"the restarted UGV#3 refused {len(before_start)} as sent before it started, "
            f"{len(seen_since)} as not newer, {len(earlier)} of its earlier process"
        )
        # None changed a decision: each idle UGV decided at most once per HELP the UAV of
        # launch 2 sent, and the UAV chose only robots of launch 2 that offered help.
        real = helps_sent(traces["UAV"])
        for trace in (traces["UGV#4"], traces["UGV#3"], again_trace):
            assert len(decisions(trace)) <= real, (trace, len(decisions(trace)), real)


def test_a_sender_skewed_inside_the_window_is_heard_and_outside_it_refused():
    """Python signs as the UAV with its clock skewed: 2 s (inside the 3 s window) behind in a
    HELP to UGV#3 and ahead in one to UGV#4, each heard and decided on; 4 s (outside) behind
    and ahead, each refused with its reason."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        keys = make_keys(tmp)
        hub = free_port()
        session = zenoh.open(peer_config(f"tcp/127.0.0.1:{hub}"))
        secret = load_secret(keys, "UAV")
        epoch = time.time() * 1000.0 + LEAD_MS
        traces = {n: tmp / f"{chunk(n)}.jsonl" for n in ("UGV#3", "UGV#4")}
        robots = [start(n, keys, hub, epoch, traces[n], 80, WINDOW_MS) for n in traces]
        # No older than the launch (its epoch in whole milliseconds, rounded up).
        instance = math.ceil(epoch) * 1000
        seq = [instance]

        def help_to(to, session_no, skew_ms):
            seq[0] += 1
            key = f"affect/v1/{TEAM}/UAV/recruit"
            payload = json.dumps(
                {
                    "v": 1, "team": TEAM, "from": "UAV", "instance": instance,
                    "seq": seq[0], "wall_ms": time.time() * 1000.0 + skew_ms,
                    "t_ms": (time.time() * 1000.0 - epoch) * SPEED, "to": to,
                    "body": {
                        "type": "HELP", "block": "help", "requester": "UAV",
                        "session": session_no, "at": [50.0, 50.0],
                        "percept": "mine_detector", "resend_ms": 3000.0,
                    },
                }
            ).encode()
            session.put(key, payload, attachment=secret.sign(key.encode() + b"\n" + payload))

        sleep_until(epoch / 1000.0 + 0.5)
        help_to("UGV#3", 1, -(WINDOW_MS + 1000.0))
        help_to("UGV#4", 1, WINDOW_MS + 1000.0)
        sleep_until(epoch / 1000.0 + 1.0)
        help_to("UGV#3", 2, -(WINDOW_MS - 1000.0))
        help_to("UGV#4", 2, WINDOW_MS - 1000.0)
        stop(robots)
        session.close()
        # Each robot hears every HELP (and decides on the one addressed to it): both of the
        # skewed ones outside the window are refused by both robots, with the skew.
        for name in traces:
            refused = rejections(traces[name])
            assert [(e["from"], e["kind"]) for e in refused] == [("UAV", "HELP")] * 2, refused
            whys = sorted(e["why"] for e in refused)
            assert whys[0].startswith("from the future: sent "), whys
            assert whys[1].startswith("stale: sent "), whys
            assert all(w.endswith("(freshness window 3000 ms)") for w in whys), whys
            heard = [e for e in decisions(traces[name]) if e.get("peer") == "UAV"]
            assert len(heard) == 1, (name, decisions(traces[name]))


def test_the_launcher_refuses_and_tells_a_restart_or_start_it_cannot_trust():
    """An unsigned `restart` (a stranger asking the launcher to start a process) and a
    `start` under the launcher's name signed by another key start nothing; the launcher
    prints each refusal and traces it."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        failover = ROOT / "examples" / "failover.affect"
        keys = tmp / "keys"
        subprocess.run([AFFECT, "keys", str(failover), "--out", str(keys)], check=True)
        trace = tmp / "team.jsonl"
        launch = subprocess.Popen(
            [
                AFFECT, "launch", str(failover), "--keys", str(keys), "--speed", "4",
                "--ticks", "300", "--trace", str(trace),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        err = []
        try:
            hub = None
            for line in launch.stderr:
                err.append(line)
                if line.startswith("launch: the team meets at "):
                    hub = line.split()[-1]
                    break
            assert hub, "".join(err)
            conf = zenoh.Config()
            conf.insert_json5("mode", '"peer"')
            conf.insert_json5("scouting/multicast/enabled", "false")
            conf.insert_json5("connect/endpoints", json.dumps([hub]))
            session = zenoh.open(conf)
            time.sleep(3.0)
            now = time.time()
            restart = {
                "v": 1, "team": "PlanetSurface", "from": "Peoplebot",
                "instance": int(now * 1e6), "seq": int(now * 1e6) + 1,
                "wall_ms": now * 1000.0, "t_ms": 0.0, "to": None,
                "body": {
                    "type": "restart", "owner": "Peoplebot",
                    "component": "speech_production", "host": "laptop1",
                },
            }
            session.put(
                "affect/v1/PlanetSurface/Peoplebot/restart", json.dumps(restart).encode()
            )
            start = dict(restart, **{"from": "launch", "seq": int(now * 1e6) + 2,
                                     "body": {"type": "start", "epoch_ms": now * 1000.0}})
            key = "affect/v1/PlanetSurface/launch/control"
            payload = json.dumps(start).encode()
            stranger = Ed25519PrivateKey.generate()
            session.put(key, payload, attachment=stranger.sign(key.encode() + b"\n" + payload))
            err.extend(launch.stderr)
            launch.wait(timeout=120)
            session.close()
        finally:
            if launch.poll() is None:
                launch.kill()
                launch.wait()
        text = "".join(err)
        assert launch.returncode == 0, text
        assert "launch: refused restart from Peoplebot: no signature" in text, text
        assert "launch: refused start from launch: bad signature" in text, text
        lines = events(trace)
        refused = [
            (e["from"], e["kind"], e["why"])
            for e in lines
            if e["ev"] == "rejected" and e["agent"] == "launch"
        ]
        assert ("Peoplebot", "restart", "no signature") in refused, refused
        assert ("launch", "start", "bad signature") in refused, refused
        # Nothing was started: a robot and three hosts, as at the start.
        assert len({e["pid"] for e in lines if "pid" in e and e["agent"] != "launch"}) == 4
        # The robots refused the forged start too.
        robots = [e for e in lines if e["ev"] == "rejected" and e["agent"] == "Peoplebot"]
        assert ("launch", "start", "bad signature") in [
            (e["from"], e["kind"], e["why"]) for e in robots
        ], robots


def test_a_robot_on_its_own_learns_its_launch_from_a_fresh_signed_start_only():
    """A robot started on its own (no `--epoch`) knows no launch: a `start` signed by the
    launcher's key but a minute old (captured, replayed) is refused as stale and pins it to
    nothing; a fresh one is learned, and from then on a process older than that launch is
    refused while one of the launch is heard."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        keys = make_keys(tmp)
        hub = free_port()
        session = zenoh.open(peer_config(f"tcp/127.0.0.1:{hub}"))
        launcher, uav = load_secret(keys, "launch"), load_secret(keys, "UAV")
        trace = tmp / "UGV-3.jsonl"
        robot = subprocess.Popen(
            [
                AFFECT, "run", str(EXAMPLE), "--agent", "UGV#3", "--net", "--quiet",
                "--no-persist", "--keys", str(keys), "--listen",
                f"tcp/127.0.0.1:{free_port()}", "--connect", f"tcp/127.0.0.1:{hub}",
                "--speed", str(SPEED), "--loss", "0", "--ticks", "200", "--trace", str(trace),
            ],
            stdin=subprocess.PIPE,
        )
        seq = [int(time.time() * 1e6)]

        def put(secret, sender, kind, instance, wall_ms, body, to=None):
            seq[0] += 1
            key = f"affect/v1/{TEAM}/{chunk(sender)}/{kind}"
            payload = json.dumps(
                {
                    "v": 1, "team": TEAM, "from": sender, "instance": instance,
                    "seq": seq[0], "wall_ms": wall_ms, "t_ms": 0.0, "to": to, "body": body,
                }
            ).encode()
            session.put(key, payload, attachment=secret.sign(key.encode() + b"\n" + payload))

        def help_from(instance, session_no):
            put(uav, "UAV", "recruit", instance, time.time() * 1000.0, {
                "type": "HELP", "block": "help", "requester": "UAV", "session": session_no,
                "at": [50.0, 50.0], "percept": "mine_detector", "resend_ms": 3000.0,
            }, to="UGV#3")

        try:
            # The robot is up once its liveliness token is.
            token = f"affect/v1/{TEAM}/UGV-3/alive"
            deadline = time.time() + 60
            while time.time() < deadline and not list(session.liveliness().get(token)):
                time.sleep(0.2)
            time.sleep(0.5)
            now = time.time() * 1000.0
            old = now - 60_000.0
            put(launcher, "launch", "control", int(old * 1000), old, {
                "type": "start", "epoch_ms": old})
            time.sleep(0.3)
            epoch = time.time() * 1000.0
            put(launcher, "launch", "control", int(epoch * 1000), epoch, {
                "type": "start", "epoch_ms": epoch})
            time.sleep(0.3)
            help_from(int(epoch * 1000) - 5_000_000, 1)
            time.sleep(0.3)
            help_from(math.ceil(epoch) * 1000, 2)
            time.sleep(1.0)
        finally:
            robot.stdin.close()
            robot.wait(timeout=60)
            session.close()
        refused = [(e["from"], e["kind"], e["why"]) for e in rejections(trace)]
        assert len(refused) == 2, refused
        assert refused[0][:2] == ("launch", "start") and refused[0][2].startswith("stale: sent 6")
        assert refused[1][:2] == ("UAV", "HELP"), refused
        assert refused[1][2].startswith(
            "replayed: sent by a process started before this launch ("
        ), refused
        heard = [e for e in decisions(trace) if e.get("peer") == "UAV"]
        assert len(heard) == 1, decisions(trace)
