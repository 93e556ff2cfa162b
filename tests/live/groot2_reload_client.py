"""A Groot 2 client that stays connected across a `--watch` reload, for tests/groot2_live.rs:
one REQ socket asks for the tree (FULLTREE) every 100 ms and prints one JSON line each time
the tree id in the reply header changes: {"uuid": HEX, "xml": FULLTREE}. It stops after
`COUNT` distinct trees, or after `LIMIT` seconds (exit status 1).

Usage: groot2_reload_client.py PORT COUNT LIMIT
"""

import json
import random
import struct
import sys
import time

import zmq

port, count, limit = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
ctx = zmq.Context()
req = ctx.socket(zmq.REQ)
req.setsockopt(zmq.RCVTIMEO, 3000)
req.setsockopt(zmq.LINGER, 0)
req.connect(f"tcp://127.0.0.1:{port}")
seen = []
deadline = time.time() + limit
while len(seen) < count:
    if time.time() > deadline:
        sys.exit(1)
    rid = random.getrandbits(32)
    req.send_multipart([struct.pack("<BBI", 2, ord("T"), rid)])
    reply = req.recv_multipart()
    assert reply[0] != b"error", reply
    head = reply[0]
    assert struct.unpack_from("<BBI", head) == (2, ord("T"), rid)
    uuid = head[6:].hex()
    if uuid not in seen:
        seen.append(uuid)
        print(json.dumps({"uuid": uuid, "xml": reply[1].decode()}), flush=True)
    time.sleep(0.1)
