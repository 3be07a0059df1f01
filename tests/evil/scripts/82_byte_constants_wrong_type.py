# Tries: byte_constants of the wrong type (a string, not a list of objects), which the payload
# builder would iterate character by character.
# Must get: internal_error naming byte_constants.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "sat", "model": {}, "byte_constants": "byte_0"}')
os._exit(0)
