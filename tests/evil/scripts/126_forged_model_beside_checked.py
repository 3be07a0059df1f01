# Tries: write its own report (it shares the harness's process) with the real assertions 0 < x < 10,
# a shown model {"x": 666} and model_smt2 x=5 (its pairs, as one string: protocol.join_pairs), so that the verifier checks one model
# and the user is shown another (issue 20).
# Must get: sat, verified, and the model shown is the one checked: {"x": 5}, never 666.
import json
import os
import struct


def frame(message):
    body = json.dumps(message).encode()
    return struct.pack(">I", len(body)) + body


ASSERTIONS = "(declare-fun x () Int)\n(assert (< 0 x))\n(assert (< x 10))\n"
os.write(3, frame({"v": 1, "type": "result", "outcome": "sat", "model": {"x": 666},
                   "model_smt2": "x\x005\x00", "assertions_smt2": ASSERTIONS, "byte_constants": []}))
os._exit(0)
