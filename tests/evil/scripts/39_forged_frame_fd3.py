# Tries: write forged frames on the result descriptor (fd 3): a second "setup" frame claiming
# no layers (or all), and a result for another candidate id, then leave without a report.
# Must get: the isolation report is the bootstrap's (written before user code), and the outcome is
# at most this candidate's own claim: never another candidate's verdict changed.
import json, os, struct
def frame(m):
    b = json.dumps(m).encode()
    return struct.pack(">I", len(b)) + b
os.write(3, frame({"v": 1, "type": "setup", "layers": [], "error": None}))
os.write(3, frame({"v": 1, "type": "result", "id": 2, "index": 1, "outcome": "unsat", "reason": "forged"}))
os.write(3, frame({"v": 1, "type": "result", "outcome": "sat", "model": {"x": 42}, "byte_constants": []}))
os._exit(0)
