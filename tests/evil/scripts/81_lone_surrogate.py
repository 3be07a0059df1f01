# Tries: a lone surrogate ("\\ud800") in a model value, which JSON accepts and UTF-8 cannot encode,
# so that re-encoding the result for the host fails.
# Must get: internal_error saying the string is not valid Unicode; nothing else is affected.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "sat", "model": {"x": "\\ud800"}}')
os._exit(0)
