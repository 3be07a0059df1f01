"""SMT-LIB as z3's own front end prints it (``z3 file.smt2``: the z3-solver wheel ships no executable,
so the reference is the same command interpreter reached through ``Z3_eval_smtlib2_string`` in a
fresh Python process), and a script of several checks: what the SMT-LIB tests compare with."""

from __future__ import annotations

import subprocess
import sys

# x in [1, 2], each model excluded in turn: sat, sat, unsat.
SAT_SAT_UNSAT = """(declare-const x Int)
(assert (and (>= x 1) (<= x 2)))
(check-sat)
(get-model)
(assert (not (= x 1)))
(check-sat)
(get-model)
(assert (not (= x 2)))
(check-sat)
"""

REFERENCE = """
import sys, z3
text = sys.stdin.read()
try:
    out = z3.Z3_eval_smtlib2_string(z3.main_ctx().ref(), text)
except z3.Z3Exception as exc:  # the output up to the end, errors included
    out = exc.value.decode() if isinstance(exc.value, bytes) else exc.value
sys.stdout.write(out)
"""


def z3_prints(text: str) -> str:
    """What z3's command interpreter prints for the SMT-LIB ``text``, errors included."""
    done = subprocess.run([sys.executable, "-c", REFERENCE], input=text, capture_output=True,
                          text=True, timeout=120, check=True)
    return done.stdout
