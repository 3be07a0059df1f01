# Tries: a result frame that is valid JSON but a list, and one with an unknown outcome inside.
# Must get: internal_error saying the frame is not an object.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'[{"v": 1, "type": "result", "outcome": "sat"}]')
os._exit(0)
