# Tries: a well-formed result frame, then more frames after it (another result, to change its mind).
# Must get: internal_error (protocol violation: only a setup frame, then one result).
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "sat", "model": {"x": 1}}')
send(b'{"v": 1, "type": "result", "outcome": "unsat"}')
os._exit(0)
