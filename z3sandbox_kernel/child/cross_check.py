"""A second solver, cvc5, on the same SMT-LIB text the verifier gave z3 (``cross_check="cvc5"``).

cvc5 is imported here only when a run asks for it (``pip install 'z3sandbox-kernel[cvc5]'``): a
verifier that is not asked never loads it.  The text has already passed the verifier's command
check (verify.py: declarations and assertions only), since cvc5's parser, like z3's, runs every
command it reads.  Text cvc5 does not parse (z3-only operators, z3's extensions) is "not
cross-checked", never a disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SOLVER = "cvc5"
EXTRA = "cvc5"  # pyproject's optional dependency that installs it


@dataclass(frozen=True)
class Answer:
    """cvc5's word: ``agrees`` True (it confirms), False (it contradicts: ``detail`` says how) or
    None (not cross-checked: ``detail`` says why)."""

    agrees: bool | None
    detail: str = ""
    solver: str = SOLVER


def model_holds(assertions_smt2: str, pairs: list[tuple[str, str]], seconds: float) -> Answer:
    """The model ``pairs`` (SMT-LIB names and values, as z3 printed them) satisfies the assertions
    in cvc5 too: the assertions and the model's equalities are sat."""
    fixed = "".join(f"(assert (= {name} {value}))" for name, value in pairs)
    return _check(assertions_smt2 + "\n" + fixed, "sat", seconds,
                  "the model does not satisfy the assertions in cvc5")


def unsat_holds(assertions_smt2: str, seconds: float) -> Answer:
    """The assertions are unsat in cvc5 too."""
    return _check(assertions_smt2, "unsat", seconds, "cvc5 finds the assertions satisfiable")


def _check(text: str, expected: str, seconds: float, contradiction: str) -> Answer:
    if seconds <= 0:
        return Answer(None, "the verification budget ran out before cvc5 could run")
    try:
        import cvc5
    except ImportError as exc:
        return Answer(None, f"cvc5 is not installed here ({exc})")
    try:
        solver = cvc5.Solver()
        solver.setOption("tlimit-per", str(max(1, int(seconds * 1000))))
        solver.setLogic("ALL")
        symbols = cvc5.SymbolManager(solver.getTermManager())
        parser = cvc5.InputParser(solver, symbols)
        parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "assertions")
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            command.invoke(solver, symbols)
    except Exception as exc:  # cvc5 raises RuntimeError for what it cannot parse
        return Answer(None, f"cvc5 could not parse it: {_first_line(exc)}")
    try:
        result: Any = solver.checkSat()
    except Exception as exc:
        return Answer(None, f"cvc5 failed: {_first_line(exc)}")
    if result.isUnknown():
        return Answer(None, f"cvc5 could not decide it ({result.getUnknownExplanation()})")
    found = "sat" if result.isSat() else "unsat"
    return Answer(True) if found == expected else Answer(False, contradiction)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
