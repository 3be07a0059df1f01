# Tries: an unsat core whose line is not a number, which raised in the host's reader.
# Must get: internal_error naming the core entry; the host's next run works.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "unsat", "unsat_core": [["one", "x > 1"]]}')
os._exit(0)
