# Tries: a forged model value {"fraction": [1, 0]}, which raised ZeroDivisionError in the host's
# reader and bricked the Sandbox.
# Must get: internal_error naming the denominator; the host's next run works.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "sat", "model": {"x": {"fraction": [1, 0]}}}')
os._exit(0)
