"""``models=N``: up to N-1 further models of a sat candidate's assertions, by blocking clauses.

Runs after the script and after its report is built, so the script's output and its objects are
untouched: the assertions of its last check (the SMT-LIB text the report carries for the verifier)
are loaded into a solver of the harness's own, in a context of its own, and each further model
must differ from every earlier one on the first model's constants of basic sorts (the ones a
verifier fixes: ``model_smt2``).  Each check runs under the candidate's solver timeout (the
observers' watchdog) and counts in its wall and CPU time.  An ``Optimize`` check's further models
satisfy its hard assertions; they need not be optimal.  Each model is verified by the zygote's
verifier like the first one (zygote/jobs.py).
"""

from __future__ import annotations

from typing import Any

import z3

from ..protocol import MORE_MODELS_REPORT_BYTES, FoundModel, join_pairs
from . import models

# At most this many models per candidate (the first included); the further ones take at most
# MORE_MODELS_REPORT_BYTES of the report (protocol.report_budget has room for them).
MAX_MODELS = 100


def find(assertions: str, first: list[tuple[str, str]], count: int) -> list[FoundModel]:
    """Up to ``count - 1`` models of ``assertions`` other than ``first`` (its SMT-LIB pairs) and
    each other; fewer when there are no more, a check is not sat, or the bytes run out."""
    names = {name for name, _ in first}
    blocks: list[str] = []
    pairs = first
    found: list[FoundModel] = []
    size = 0
    for _ in range(min(count, MAX_MODELS) - 1):
        if not pairs:
            break  # nothing to tell the next model apart by
        blocks.append(f"(assert (not (and {' '.join(f'(= {n} {v})' for n, v in pairs)} true)))\n")
        fields = _next_model(assertions + "".join(blocks))
        if fields is None:
            break
        size += fields.size + 2 * len(fields.byte_values)
        if size > MORE_MODELS_REPORT_BYTES:
            break
        found.append({"model": fields.model, "byte_constants": fields.byte_constants,
                      "byte_runs": fields.byte_runs(), "model_smt2": join_pairs(fields.model_smt2)})
        pairs = [pair for pair in fields.model_smt2 if pair[0] in names]
    return found


def _next_model(text: str) -> models.ModelFields | None:
    """A model of ``text`` in a context of the harness's own, or None (unsat, unknown, error)."""
    try:
        solver: Any = z3.Solver(ctx=z3.Context())
        solver.from_string(text)
        if solver.check() != z3.sat:
            return None
        return models.read_model(solver.model())
    except (z3.Z3Exception, MemoryError):
        return None
