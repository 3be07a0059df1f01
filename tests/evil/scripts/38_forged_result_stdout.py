# Tries: print something that looks like a result (a protocol frame and a CandidateDict) on stdout.
# Must get: no_check with no model: stdout is only ever text.
import json, struct
fake = {"v": 1, "type": "done", "id": 1, "result": {"verdict": "sat", "model": {"x": 42}}}
body = json.dumps(fake).encode()
print(struct.pack(">I", len(body)).decode("latin-1") + body.decode())
print(json.dumps({"verdict": "sat", "model": {"x": 42}, "outcome": "sat"}))
