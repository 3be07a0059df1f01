# Tries: a small report that grows when the zygote re-encodes it for the host: 7 MB of hex byte_N
# runs (14 MB of text, within the report budget) that would expand to millions of model entries.
# Must get: its own claim (sat, the payload refused: past the maximum length) or internal_error;
# the model holds at most payload_max_bytes byte_N, and the zygote and the host stay small.
import os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


send(b'{"v": 1, "type": "result", "outcome": "sat", "model": {}, "byte_runs": [[0, "'
     + b"00" * 7_000_000 + b'"]]}')
os._exit(0)
