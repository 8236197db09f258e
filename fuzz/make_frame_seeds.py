#!/usr/bin/env python3
"""Writes the seed corpus of frame_fuzz (fuzz/corpus/frame/): valid frame streams.

Each seed is one byte (frame_fuzz's read size minus one) and a stream of frames laid out as in
docs/protocol.md. Sealed frames are MAC'd with the harness's session key and numbered from 1,
so they open. Run from anywhere: python3 fuzz/make_frame_seeds.py
"""
import hashlib
import hmac
import json
import os
import struct

SESSION_KEY = b"frame-fuzz-session-key"
KINDS = {"hello": 1, "challenge": 2, "auth": 3, "welcome": 4, "reject": 5, "sealed": 16}


def frame(kind, body, seq=0):
    payload = json.dumps(body, separators=(",", ":")).encode()
    signed = struct.pack(">IBBHQ", len(payload), 1, KINDS[kind], 0, seq) + payload
    if kind == "sealed":
        signed += hmac.new(SESSION_KEY, signed, hashlib.sha256).digest()
    return signed


def sealed(*messages):
    return b"".join(frame("sealed", m, seq) for seq, m in enumerate(messages, start=1))


HELLO = {"job": "frame-fuzz-job", "peer": "launcher", "node": "gpu-001", "nonce": "ab" * 32}
SEEDS = {
    "hello": (255, frame("hello", HELLO)),
    "hello-auth-split": (2, frame("hello", HELLO) + frame("auth", {"proof": "cd" * 32})),
    "challenge-welcome": (15, frame("challenge", {"nonce": "01" * 32, "proof": "ef" * 32})
                          + frame("welcome", {})),
    "reject": (255, frame("reject", {"reason": "hello: job: missing"})),
    "join-heartbeat": (7, sealed(
        {"type": "join", "node": "gpu-001", "checks": [], "pid": 4242},
        {"type": "heartbeat", "instances": [{"instance": 0, "idleMs": 12, "hangInterval": 1800,
                                             "step": 7}]})),
    "heartbeat-telemetry": (23, sealed(
        {"type": "join", "node": "gpu-001", "checks": [], "pid": 4242},
        {"type": "heartbeat", "instances": [{
            "instance": 0, "idleMs": 12, "hangInterval": 1800, "step": 7,
            "telemetry": [
                {"rank": 0, "step": 7, "steps": 3, "stepUs": 900000, "windowUs": 1000000,
                 "commUs": 300000, "entered": 21, "exited": 20, "openMs": 12, "op": 1,
                 "quietMs": 3, "lost": 0, "tcpRttUs": 85, "tcpRetrans": 0},
                {"rank": 1, "step": 6, "steps": 0, "stepUs": 0, "windowUs": 1000000,
                 "commUs": 0, "entered": 18, "exited": 18, "openMs": -1, "op": 0,
                 "quietMs": 41000, "lost": 2, "tcpRttUs": -1, "tcpRetrans": -1}]}]})),
    "hang-forensics": (47, sealed(
        {"type": "hang", "instance": 0, "exiting": False, "seconds": 60, "reason": "silent"},
        {"type": "forensics", "instance": 0, "attempt": 0,
         "folder": "/runs/train/logs/forensics/attempt-0",
         "ranks": [{"rank": 0, "place": "collective",
                    "frame": "c10d::Reducer::finalize_backward()"},
                   {"rank": 1, "place": "outside", "frame": "<module> (train.py:8)"},
                   {"rank": 2, "place": "unknown", "frame": ""}]})),
    "exec-output": (255, sealed(
        {"type": "exec-output", "id": 1, "stream": "stdout", "data": "aGVsbG8K"},
        {"type": "exec-exit", "id": 1, "code": 0})),
    "assign-stop": (31, sealed(
        {"type": "assign", "instance": 2,
         "hosts": [{"instance": 2, "name": "spare-0", "address": "10.0.1.1", "slots": 8}]},
        {"type": "stop", "instance": 2, "signal": 15, "dumpStacks": False, "reason": "paused"})),
    "fabric": (19, sealed(
        {"type": "fabric-listen", "round": 1, "pair": 0, "key": "0123456789abcdef" * 2},
        {"type": "fabric-listening", "round": 1, "pair": 0, "address": "10.0.0.3", "port": 29999},
        {"type": "fabric-connect", "round": 2, "pair": 1, "key": "k", "address": "fd00::3",
         "port": 29998},
        {"type": "fabric-result", "round": 2, "pair": 1, "error": "", "outKbps": 9400000,
         "inKbps": 9100000, "latencyNs": 31000})),
    "status-logs": (63, sealed(
        {"type": "logs", "rank": -1, "follow": True, "tail": 16384},
        {"type": "status", "job": "demo", "phase": "running",
         "nodes": [{"node": "gpu-001", "address": "10.0.0.1", "instance": 0, "role": "worker",
                    "index": 0, "ranks": [0, 7], "state": "running", "restarts": 0,
                    "lastEvent": ""}]})),
}


def main():
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "frame")
    os.makedirs(folder, exist_ok=True)
    for name, (read_size, stream) in SEEDS.items():
        with open(os.path.join(folder, name), "wb") as out:
            out.write(bytes([read_size]) + stream)


if __name__ == "__main__":
    main()
