# Tries: an exception report whose "exception" is a list, not {type, message, line}.
# Must get: internal_error naming the exception field.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "exception", "reason": "x", "exception": [1, 2]}')
os._exit(0)
