"""Another language on an affect team's network (docs/network.md), with the eclipse-zenoh
Python package: a Python program that holds a team member's key speaks the recruitment
protocol with an affect robot, and a stranger's messages are refused and never acted on.

scripts/test.sh runs this with the project's venv (.tools/netpy) after building `affect`;
AFFECT_BIN names the binary (default target/debug/affect).
"""

import base64
import json
import math
import os
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import zenoh
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

ROOT = Path(__file__).resolve().parents[2]
AFFECT = os.environ.get("AFFECT_BIN", str(ROOT / "target" / "debug" / "affect"))
EXAMPLE = ROOT / "examples" / "recruitment.affect"
TEAM = "Minefield"
SPEED = 20.0
# Robots start ticking this long after they are started: time to open their sessions.
LEAD_MS = 4000.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chunk(name):
    return name.replace("#", "-")


def key(sender, kind):
    return f"affect/v1/{TEAM}/{chunk(sender)}/{kind}"


class Member:
    """One Python process's place in the team: a session, a name and a signing key."""

    def __init__(self, name, secret, port, epoch_ms, tls=None):
        """`tls`: Zenoh's `transport/link/tls` settings; the member then listens on `tls/`."""
        self.name = name
        self.secret = secret
        self.epoch_ms = epoch_ms
        self.seq = int(time.time() * 1e6)
        # This process: when it started, or the launch's epoch when later (docs/network.md):
        # the robots refuse a process older than their launch.
        self.instance = max(int(time.time() * 1e6), math.ceil(epoch_ms) * 1000)
        self.session = zenoh.open(peer_config(f"{'tls' if tls else 'tcp'}/127.0.0.1:{port}", tls))

    def world_ms(self):
        return (time.time() * 1000.0 - self.epoch_ms) * SPEED

    def send(self, to, body, claiming=None):
        """Signs and publishes a recruitment message, from this member or, for a stranger,
        from the member it claims to be."""
        sender = claiming or self.name
        self.seq += 1
        k = key(sender, "recruit")
        payload = json.dumps(
            {
                "v": 1,
                "team": TEAM,
                "from": sender,
                "instance": self.instance,
                "seq": self.seq,
                "wall_ms": time.time() * 1000.0,
                "t_ms": self.world_ms(),
                "to": to,
                "body": body,
            }
        ).encode()
        signature = self.secret.sign(k.encode() + b"\n" + payload)
        self.session.put(k, payload, attachment=signature)


def peer_config(listen, tls=None, connect=None):
    """A peer on loopback without multicast scouting (docs/network.md), over TLS if asked."""
    conf = zenoh.Config()
    conf.insert_json5("mode", '"peer"')
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("listen/endpoints", json.dumps([listen]))
    if connect:
        conf.insert_json5("connect/endpoints", json.dumps([connect]))
    if tls:
        conf.insert_json5("transport/link/tls", json.dumps(tls))
    return conf


def load_secret(keys, name):
    text = json.loads((keys / f"{name}.key").read_text())
    return Ed25519PrivateKey.from_private_bytes(base64.b64decode(text["secret"]))


def load_team(keys):
    team = json.loads((keys / "team.pub").read_text())
    return {
        name: Ed25519PublicKey.from_public_bytes(base64.b64decode(k))
        for name, k in team["members"].items()
    }


def start_robot(name, keys, port, hub, epoch_ms, trace, ticks, zenoh_config=None, args=()):
    """An affect robot on loopback; with `zenoh_config` (a Zenoh configuration file) it
    listens and connects over TLS; `args` are more options of `affect run`."""
    scheme = "tls" if zenoh_config else "tcp"
    extra = ["--zenoh-config", str(zenoh_config)] if zenoh_config else []
    extra += list(args)
    return subprocess.Popen(
        [
            AFFECT, "run", str(EXAMPLE), "--agent", name, "--net", "--quiet",
            "--no-persist", "--keys", str(keys), "--listen", f"{scheme}/127.0.0.1:{port}",
            "--connect", f"{scheme}/127.0.0.1:{hub}", "--epoch", f"{epoch_ms:.3f}",
            "--speed", str(SPEED), "--loss", "0", "--ticks", str(ticks),
            "--trace", str(trace), *extra,
        ],
        stdin=subprocess.PIPE,
    )


def events(trace):
    return [json.loads(line) for line in Path(trace).read_text().splitlines()]


def finish(procs, limit_s):
    try:
        for p in procs:
            p.wait(timeout=limit_s)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p in procs:
        assert p.returncode == 0, f"a robot exited with {p.returncode}"


def make_keys(tmp):
    keys = Path(tmp) / "keys"
    subprocess.run([AFFECT, "keys", str(EXAMPLE), "--out", str(keys)], check=True)
    return keys


def take_over_from_the_uav(tmp, tls=None, zenoh_config=None, hub=None):
    """Python, as UGV#1, answers the affect UAV's HELP and takes its task over through the
    whole handshake, verifying every message it hears. Python listens on port `hub` (`tls/`
    with `tls` settings), the UAV connects to it. Returns the UAV's recruitment steps."""
    keys = make_keys(tmp)
    team = load_team(keys)
    hub = hub or free_port()
    epoch = time.time() * 1000.0 + LEAD_MS
    me = Member("UGV#1", load_secret(keys, "UGV#1"), hub, epoch, tls)
    heard = {}
    bad = []
    lock = threading.Lock()

    def on_recruit(sample):
        k = str(sample.key_expr)
        payload = sample.payload.to_bytes()
        msg = json.loads(payload)
        if msg["from"] == me.name:
            return
        signature = sample.attachment.to_bytes() if sample.attachment else b""
        try:
            team[msg["from"]].verify(signature, k.encode() + b"\n" + payload)
        except (InvalidSignature, KeyError):
            bad.append(msg)
            return
        body = msg["body"]
        common = {
            "block": body["block"],
            "requester": body["requester"],
            "session": body["session"],
        }
        with lock:
            heard.setdefault(body["type"], []).append(msg)
            if body["type"] == "HELP":
                me.send("UAV", {"type": "ACCEPT", **common, "eta_ms": 1000.0})
            elif body["type"] == "RESPONDER" and body["chosen"] == me.name:
                me.send("UAV", {"type": "ARRIVAL", **common, "lease_ms": 30000.0})
            elif body["type"] == "AGREE" and msg["to"] == me.name:
                me.send("UAV", {"type": "ACKACK", **common})

    sub = me.session.declare_subscriber(f"affect/v1/{TEAM}/*/recruit", on_recruit)
    trace = Path(tmp) / "uav.jsonl"
    # The UAV meets its first possible mine at 82 s of world time.
    uav = start_robot("UAV", keys, free_port(), hub, epoch, trace, 150, zenoh_config)
    finish([uav], 120)
    sub.undeclare()
    me.session.close()
    assert not bad, f"messages not signed by their sender: {bad}"
    for kind in ("HELP", "RESPONDER", "AGREE"):
        assert heard.get(kind), f"Python never heard a {kind}"
    assert all(e["pid"] == uav.pid for e in events(trace))
    return [
        (e["step"], e.get("peer"))
        for e in events(trace)
        if e["ev"] == "recruit" and e["agent"] == "UAV"
    ]


def test_python_speaks_the_recruitment_protocol_with_an_affect_robot():
    with tempfile.TemporaryDirectory() as tmp:
        steps = take_over_from_the_uav(tmp)
        assert ("chose", "UGV#1") in steps, steps
        assert ("helped", "UGV#1") in steps, steps


def test_a_stranger_with_a_members_name_is_refused_and_never_acted_on():
    with tempfile.TemporaryDirectory() as tmp:
        keys = make_keys(tmp)
        hub = free_port()
        epoch = time.time() * 1000.0 + LEAD_MS
        stranger = Ed25519PrivateKey.generate()
        # The stranger claims to be UGV#1 (answering the real UAV) and the UAV (asking UGV#3).
        as_ugv = Member("UGV#1", stranger, hub, epoch)
        sent = {"ACCEPT": 0, "HELP": 0}

        def on_recruit(sample):
            msg = json.loads(sample.payload.to_bytes())
            body = msg["body"]
            if msg["from"] == "UAV" and body["type"] == "HELP":
                as_ugv.send(
                    "UAV",
                    {
                        "type": "ACCEPT",
                        "block": body["block"],
                        "requester": "UAV",
                        "session": body["session"],
                        "eta_ms": 0.0,
                    },
                )
                sent["ACCEPT"] += 1

        sub = as_ugv.session.declare_subscriber(f"affect/v1/{TEAM}/UAV/recruit", on_recruit)
        traces = {n: Path(tmp) / f"{chunk(n)}.jsonl" for n in ("UAV", "UGV#3")}
        robots = [
            start_robot(n, keys, free_port(), hub, epoch, traces[n], 150) for n in traces
        ]
        # Forged HELPs at UGV#3 (idle, where the world spawns it) every 3 s of world time.
        forged_helps = 0
        while any(r.poll() is None for r in robots):
            t = as_ugv.world_ms()
            if 0 <= t <= 60000 and t >= forged_helps * 3000:
                as_ugv.send(
                    None,
                    {
                        "type": "HELP",
                        "block": "help",
                        "requester": "UAV",
                        "session": 77,
                        "at": [50.0, 50.0],
                        "percept": "mine_detector",
                        "resend_ms": 3000.0,
                    },
                    claiming="UAV",
                )
                forged_helps += 1
            time.sleep(0.01)
        finish(robots, 120)
        sub.undeclare()
        as_ugv.session.close()
        uav, ugv = events(traces["UAV"]), events(traces["UGV#3"])
        assert sent["ACCEPT"] > 0, "the UAV never asked for help"
        assert forged_helps > 10
        rejected = [(e["kind"], e["from"], e["why"]) for e in uav if e["ev"] == "rejected"]
        assert ("ACCEPT", "UGV#1", "bad signature") in rejected, rejected
        assert not any(
            e["ev"] == "recruit" and e.get("peer") == "UGV#1" for e in uav
        ), "the UAV acted on a forged ACCEPT"
        rejected = [(e["kind"], e["from"], e["why"]) for e in ugv if e["ev"] == "rejected"]
        assert ("HELP", "UAV", "bad signature") in rejected, rejected
        # UGV#3 decided on every real HELP and on no forged one.
        real_helps = sum(1 for e in uav if e["ev"] == "msg" and e["kind"] == "HELP")
        decisions = sum(
            1
            for e in ugv
            if e["ev"] == "recruit" and e["step"] in ("help_ignored", "help_accepted")
        )
        assert decisions <= real_helps, (decisions, real_helps)
