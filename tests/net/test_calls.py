"""Component calls from another language (docs/network.md, "Component calls"): a Python
program holding the Peoplebot's key calls speech recognition on an affect component host
(`affect host examples/failover.affect --host laptop2`) with the documented key expression
and payload, and gets the host's signed answer; a stranger's call under the Peoplebot's name
is refused, traced `rejected`, and never answered.

scripts/test.sh runs this with the project's venv (.tools/netpy) after building `affect`.
"""

import json
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from test_interop import AFFECT, ROOT, events, free_port, load_secret, load_team, peer_config

import zenoh

EXAMPLE = ROOT / "examples" / "failover.affect"
TEAM = "PlanetSurface"
SPEED = 4.0


def call_key(sender):
    return f"affect/v1/{TEAM}/{sender}/call"


def signed_call(secret, instance, seq, call_id, t_ms):
    """A signed `call` of `Listen`, served by the Peoplebot's speech recognition, to laptop2,
    sent now by the wall clock (`wall_ms`) from process `instance`."""
    key = call_key("Peoplebot")
    payload = json.dumps(
        {
            "v": 1,
            "team": TEAM,
            "from": "Peoplebot",
            "instance": instance,
            "seq": seq,
            "wall_ms": time.time() * 1000.0,
            "t_ms": t_ms,
            "to": "laptop2",
            "body": {
                "type": "call",
                "id": call_id,
                "owner": "Peoplebot",
                "component": "speech_recognition",
                "leaf": "Listen",
            },
        }
    ).encode()
    return key, payload, secret.sign(key.encode() + b"\n" + payload)


def test_python_calls_a_component_on_an_affect_host_and_a_stranger_is_refused():
    with tempfile.TemporaryDirectory() as tmp:
        keys = Path(tmp) / "keys"
        subprocess.run([AFFECT, "keys", str(EXAMPLE), "--out", str(keys)], check=True)
        team = load_team(keys)
        me = load_secret(keys, "Peoplebot")
        stranger = Ed25519PrivateKey.generate()
        hub = free_port()
        session = zenoh.open(peer_config(f"tcp/127.0.0.1:{hub}"))
        epoch = time.time() * 1000.0
        trace = Path(tmp) / "laptop2.jsonl"
        host = subprocess.Popen(
            [
                AFFECT, "host", str(EXAMPLE), "--host", "laptop2", "--keys", str(keys),
                "--listen", f"tcp/127.0.0.1:{free_port()}", "--connect", f"tcp/127.0.0.1:{hub}",
                "--epoch", f"{epoch:.3f}", "--speed", str(SPEED), "--trace", str(trace),
            ],
            stdin=subprocess.PIPE,
        )
        replies, bad = [], []
        got = threading.Event()

        def on_reply(sample):
            key = str(sample.key_expr)
            payload = sample.payload.to_bytes()
            try:
                team["laptop2"].verify(sample.attachment.to_bytes(), key.encode() + b"\n" + payload)
            except Exception as e:  # noqa: BLE001 - any failure is a bad reply
                bad.append((key, repr(e)))
                return
            replies.append(json.loads(payload))
            got.set()

        sub = session.declare_subscriber(f"affect/v1/{TEAM}/laptop2/reply", on_reply)
        try:
            # The host's component token says it is up: then calls can be answered.
            token = f"affect/v1/{TEAM}/laptop2/alive/Peoplebot/speech_recognition"
            deadline = time.time() + 60
            while time.time() < deadline and not list(session.liveliness().get(token)):
                time.sleep(0.2)
            time.sleep(0.5)
            seq = int(time.time() * 1e6)
            instance = seq
            # The stranger first, claiming to be the Peoplebot: call 7 is never answered.
            key, payload, _ = signed_call(me, instance, seq + 1, 7, 0.0)
            session.put(key, payload, attachment=stranger.sign(key.encode() + b"\n" + payload))
            time.sleep(0.5)
            key, payload, signature = signed_call(me, instance, seq + 2, 8, 0.0)
            session.put(key, payload, attachment=signature)
            assert got.wait(20), "no answer to the member's call"
            time.sleep(0.5)
        finally:
            sub.undeclare()
            session.close()
            host.stdin.close()
            host.wait(timeout=30)
        assert not bad, bad
        assert [(r["body"]["id"], r["body"]["served"], r["to"]) for r in replies] == [
            (8, True, "Peoplebot")
        ], replies
        assert replies[0]["body"]["type"] == "reply" and replies[0]["from"] == "laptop2"
        lines = events(trace)
        served = [(e["caller"], e["id"], e["leaf"]) for e in lines if e["ev"] == "call"]
        assert served == [("Peoplebot", 8, "Listen")], served
        rejected = [(e["from"], e["kind"], e["why"]) for e in lines if e["ev"] == "rejected"]
        assert ("Peoplebot", "call", "bad signature") in rejected, rejected
