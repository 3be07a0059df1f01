# Tries: a 62 MB report (it grew the zygote to 1.7 GB and the host to 1.5 GB when it was parsed).
# Must get: internal_error, killed as "report" as soon as the frame's length passes the budget.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "sat", "model": {"x": "' + b"A" * (62 << 20) + b'"}}')
os._exit(0)
