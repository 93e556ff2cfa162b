"""A Groot 2 client that speaks the protocol's documented requests with pyzmq (REQ to PORT,
SUB to PORT+1), for tests/groot2_live.rs. It checks every reply header and prints one JSON
object:

  {"xml": FULLTREE, "uids": [...], "changed": UID, "before": S1, "after": S2,
   "boards": {...}, "transitions": N, "hooks": "..." | null, "errors": {...}}

Usage: groot2_client.py PORT MAIN_TREE [--hooks UID]
"""

import json
import random
import struct
import sys
import time

import msgpack
import zmq

port = int(sys.argv[1])
main_tree = sys.argv[2]
hook_uid = int(sys.argv[sys.argv.index("--hooks") + 1]) if "--hooks" in sys.argv else None

ctx = zmq.Context()
req = ctx.socket(zmq.REQ)
req.setsockopt(zmq.RCVTIMEO, 3000)
req.setsockopt(zmq.LINGER, 0)
req.connect(f"tcp://127.0.0.1:{port}")
sub = ctx.socket(zmq.SUB)
sub.setsockopt(zmq.SUBSCRIBE, b"")
sub.setsockopt(zmq.RCVTIMEO, 3000)
sub.setsockopt(zmq.LINGER, 0)
sub.connect(f"tcp://127.0.0.1:{port + 1}")
uuid = None


def call(kind, payload=None):
    """One request; returns the reply's payload parts, or raises on an error reply."""
    global uuid
    rid = random.getrandbits(32)
    parts = [struct.pack("<BBI", 2, ord(kind), rid)]
    if payload is not None:
        parts.append(payload.encode())
    req.send_multipart(parts)
    reply = req.recv_multipart()
    if reply[0] == b"error":
        raise RuntimeError(reply[1].decode())
    head = reply[0]
    assert len(head) == 22, f"reply header of {len(head)} bytes"
    proto, typ, echoed = struct.unpack_from("<BBI", head)
    assert (proto, typ, echoed) == (2, ord(kind), rid), (proto, typ, echoed)
    assert uuid in (None, head[6:]), "the tree id changed"
    uuid = head[6:]
    assert uuid[6] >> 4 == 4 and uuid[8] >> 6 == 2, "not a version 4 UUID"
    return reply[1:]


def status():
    (buf,) = call("S")
    assert len(buf) % 3 == 0
    return {struct.unpack_from("<H", buf, k)[0]: buf[k + 2] for k in range(0, len(buf), 3)}


out = {"errors": {}}
(xml,) = call("T")
out["xml"] = xml.decode()
first = status()
out["uids"] = sorted(first)

# Snapshots until one node's status differs between two of them (the run goes on meanwhile).
changed = None
before = first
deadline = time.time() + 20
while changed is None and time.time() < deadline:
    time.sleep(0.05)
    now = status()
    for uid in sorted(now):
        if now[uid] != before.get(uid):
            changed = (uid, before.get(uid), now[uid])
            break
    before = now
assert changed, "no node changed status in 20 s"
out["changed"], out["before"], out["after"] = changed

(packed,) = call("B", main_tree)
out["boards"] = msgpack.unpackb(packed, raw=False)

(start,) = call("r", "start")
assert int(start.decode()) > 1_600_000_000_000_000, start
time.sleep(0.5)
(recorded,) = call("t")
assert len(recorded) % 9 == 0
out["transitions"] = len(recorded) // 9
call("r", "stop")

try:
    call("Z")
except RuntimeError as e:
    out["errors"]["Z"] = str(e)
req.send_multipart([b"\x02T"])
out["errors"]["short header"] = req.recv_multipart()[1].decode()

if hook_uid is None:
    try:
        call("I", json.dumps({"enabled": True, "uid": 1, "mode": 1, "once": True,
                              "desired_status": "FAILURE", "position": 0}))
    except RuntimeError as e:
        out["errors"]["I"] = str(e)
    out["hooks"] = None
else:
    # A breakpoint before the node: the run stops there and says so on PUB; unlocked with
    # FAILURE, the node fails without being ticked.
    call("I", json.dumps({"enabled": True, "uid": hook_uid, "mode": 0, "once": True,
                          "desired_status": "SKIPPED", "position": 0}))
    (dumped,) = call("D")
    header, uid_text = sub.recv_multipart()
    assert header[:2] == bytes([2, ord("N")]), header
    assert int(uid_text) == hook_uid, uid_text
    out["reached"] = int(uid_text)
    call("U", json.dumps({"uid": hook_uid, "desired_status": "FAILURE", "position": 0,
                          "remove_when_done": True}))
    out["hooks"] = dumped.decode()
    # The agent removes a once hook when it wakes from the breakpoint, just after the unlock.
    deadline = time.time() + 5
    while True:
        (after,) = call("D")
        if after == b"[]" or time.time() > deadline:
            break
        time.sleep(0.05)
    out["hooks_after"] = after.decode()
    call("A")

print(json.dumps(out))
