# Tries: a result frame nested 100,000 deep (JSON lists), to overflow the zygote's recursive parser.
# Must get: internal_error naming the nesting; the zygote checks depth before parsing and lives.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "sat", "model": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
os._exit(0)
