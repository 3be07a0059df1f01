# Tries: make its verifier -- the fresh process that re-checks a sat model and "runs no user code"
# -- write files: the reported assertions are SMT-LIB commands that z3's parser runs, so
# (set-option :regular-output-channel "oN.txt") (simplify (str.++ a a ...)) writes 12 MB files in
# the verifier's folder, which (without a PID namespace, view or tmpfs of its own) lies on the
# zygote's shared scratch (64 MB for every verifier and the probe; a host folder at process level).
# Must get: no file written by the verifier (only assertions reach it); this candidate's own claim
# is sat at most, never verified, and the sibling is unharmed.
import json, os, struct


def send(body: bytes) -> None:
    data = memoryview(struct.pack(">I", len(body)) + body)
    while data:
        data = data[os.write(3, data):]


block = "A" * 1_000_000
text = f'(define-fun a () String "{block}")'
text += "".join(f'(set-option :regular-output-channel "z3sbevil-{index}.txt") '
                "(simplify (str.++ a a a a a a a a a a a a))" for index in range(6))
text += '(set-option :regular-output-channel "stdout") (echo "ESCAPED: the verifier ran commands")'
text += "(declare-const x Int) (assert (= x 42))"
send(json.dumps({"v": 1, "type": "result", "outcome": "sat", "model": {"x": 42},
                 "assertions_smt2": text, "model_smt2": "x\x0042\x00"}).encode())
os._exit(0)
