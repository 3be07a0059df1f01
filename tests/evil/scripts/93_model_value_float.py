# Tries: a model value JSON reads as a float (1e999 is infinity; re-encoded it becomes "Infinity",
# which is not JSON, so the host could not read the Done message).
# Must get: internal_error saying it is not a model value.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "sat", "model": {"x": 1e999}}')
os._exit(0)
