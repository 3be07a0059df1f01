"""Candidates that write a report of their own on the result descriptor (fd 3) and exit, instead of
running a check: answers the host must confirm before it believes them (the verifier and fault
tests share them)."""

from __future__ import annotations

# Its own report: sat, for assertions no solver decides in a second (x^3 + y^3 + z^3 = 33), with no
# value given: its verification runs out of its budget, and takes the verifier that held it along.
STALLING = ("import json, os, struct\n"
            "text = '(declare-fun x () Int)(declare-fun y () Int)(declare-fun z () Int)'"
            " '(assert (= (+ (* x x x) (* y y y) (* z z z)) 33))'\n"
            "frame = json.dumps({'v': 1, 'type': 'result', 'outcome': 'sat', 'model': {},"
            " 'model_smt2': '', 'assertions_smt2': text}).encode()\n"
            "os.write(3, struct.pack('>I', len(frame)) + frame)\nos._exit(0)\n")
