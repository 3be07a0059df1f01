"""z3-aware hints for the errors where Python's own words mislead a script's author (often an
LLM): ``as_int`` on a z3 value, where Python suggests ``is_int``; a ``NameError`` for ``Int`` in
plain mode, where it suggests ``int``; Python's ``and``/``if`` on z3 terms; a sort mismatch
between bit-vector widths; ``model()`` after a check that was not sat.

``hint(exc)`` is the hint that ends the exception's message in the report (and so the candidate's
error and its feedback), in place of Python's suggestion; the candidate's stderr keeps Python's
own display, as ``python script.py`` prints it.  Runs after user code: it must not raise.
"""

from __future__ import annotations

import re
import types

import z3

# Wrong method names LLMs give z3 values and objects, by the z3 class they call them on.
_INT_VALUE = {name: "as_long" for name in ("as_int", "as_integer", "as_number", "to_int", "value",
                                           "as_py", "get_value", "as_signed")}
_METHODS: dict[str, dict[str, str]] = {
    "IntNumRef": _INT_VALUE,
    "BitVecNumRef": {**_INT_VALUE, "as_signed": "as_signed_long"},
    "RatNumRef": {name: "as_fraction" for name in ("as_long", "as_int", "as_float", "as_double",
                                                   "value", "as_py", "as_real")},
    "AlgebraicNumRef": {name: "approx" for name in ("as_long", "as_int", "as_float", "as_fraction")},
    "BoolRef": {name: "is_true" for name in ("as_bool", "value", "as_py", "as_long")},
    "ModelRef": {"get": "eval", "get_value": "eval", "value": "eval", "get_model": "eval"},
    "Solver": {"get_model": "model", "add_constraint": "add", "assert_": "add", "addConstraint": "add",
               "check_sat": "check", "solve": "check", "minimize": "Optimize().minimize",
               "maximize": "Optimize().maximize"},
    "Optimize": {"get_model": "model", "add_constraint": "add", "check_sat": "check", "solve": "check"},
}
_HOW = {
    "as_fraction": "a Real value: as_fraction(), as_decimal(10), or numerator_as_long() and "
                   "denominator_as_long()",
    "approx": "an algebraic value: approx(10) or as_decimal(10)",
    "is_true": "a Bool value: is_true(value)",
    "Optimize().minimize": "minimize and maximize belong to Optimize(), not Solver()",
    "Optimize().maximize": "minimize and maximize belong to Optimize(), not Solver()",
}
# z3 names LLMs misspell (not found by Python's suggestion: too far from the real name).
_NAMES = {"Integer": "Int", "IntVar": "Int", "Integers": "Ints", "RealVar": "Real", "Boolean": "Bool",
          "BoolVar": "Bool", "BitVector": "BitVec", "BV": "BitVec", "AllDifferent": "Distinct",
          "AllDistinct": "Distinct", "all_different": "Distinct", "Ite": "If", "ITE": "If",
          "Max": "If(a > b, a, b)", "Min": "If(a < b, a, b)"}
_TERM_TYPES = ("ArithRef", "BitVecRef", "ExprRef", "SeqRef", "ArrayRef", "DatatypeRef", "FPRef")
NOT_AVAILABLE = "model is not available"
UNKNOWN_WORDS = "answered unknown"


def hint(exc: BaseException) -> str:
    """A z3-aware hint for ``exc``, or "" where Python's own words serve."""
    try:
        for find in (_attribute_hint, _name_hint, _z3_exception_hint, _type_hint):
            found = find(exc)
            if found:
                return found
    except Exception:  # a hint is a nicety: the report comes first
        return ""
    return ""


def _attribute_hint(exc: BaseException) -> str:
    if not isinstance(exc, AttributeError):
        return ""
    owner, name = getattr(exc, "obj", None), getattr(exc, "name", None)
    if not isinstance(name, str):
        return ""
    if owner is None and name in {n for methods in _METHODS.values() for n in methods} | {"as_long"}:
        return ("Did you mean: m.eval(x, model_completion=True)? A model gives None for a constant it "
                "does not fix (z3)")
    # the z3 class it is (the sandbox's pre-bound ``s`` is a Solver of a subclass of its own)
    kind = next((cls.__name__ for cls in type(owner).__mro__ if cls.__module__ == "z3.z3"), None)
    if kind is None:
        return ""
    right = _METHODS.get(kind, {}).get(name)
    if right is not None:
        return f"Did you mean: '{right}'? (z3: {_HOW.get(right, f'{kind} has {right}()')})"
    if kind in _TERM_TYPES and name in _INT_VALUE | _METHODS["RatNumRef"]:
        return ("A z3 term has no value of its own: take it from a model, e.g. m.eval(x).as_long() "
                "after check() == sat (z3)")
    return ""


def _name_hint(exc: BaseException) -> str:
    if not isinstance(exc, NameError) or isinstance(exc, UnboundLocalError):
        return ""
    name = getattr(exc, "name", None)
    if not isinstance(name, str):
        return ""
    if name in _NAMES:
        right = _NAMES[name]
        if right.isidentifier():
            return f"Did you mean: '{right}'? (z3)"
        return f"z3 has no {name}: write {right}"
    if hasattr(z3, name) and not name.startswith("_"):
        return f"{name} is z3's: add `from z3 import *` at the top (or import z3 and write z3.{name})"
    other_case = [known for known in dir(z3) if known.lower() == name.lower() and not known.startswith("_")]
    if other_case:  # solver() for Solver(): Python does not suggest a name the line is assigning
        return f"Did you mean: '{other_case[0]}'? (z3)"
    return ""


def _z3_exception_hint(exc: BaseException) -> str:
    if not isinstance(exc, z3.Z3Exception):
        return ""
    message = str(exc.value if isinstance(exc.value, str) else exc)
    if "cannot be cast to concrete Boolean" in message:
        return ("A z3 term was used where Python needs True or False (and, or, not, if, while, a "
                "chained a < b < c): write And(...), Or(...), Not(...), If(c, a, b) (z3)")
    if any(words in message for words in ("sort mismatch", "does not match declaration", "are incompatible")):
        return ("Both sides of an operation need one sort: ZeroExt/SignExt/Extract for bit-vectors "
                "of other widths, BV2Int/Int2BV between Int and BitVec, ToReal/ToInt between Int and "
                "Real (z3)")
    if NOT_AVAILABLE in message:
        return _model_hint(exc)
    return ""


def _model_hint(exc: BaseException) -> str:
    """model() when the solver's last check was not sat: what that check answered, and why."""
    from . import observer
    from .copies import address

    tb: types.TracebackType | None = exc.__traceback__
    solver = None
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        if isinstance(owner, (z3.Solver, z3.Optimize)) and tb.tb_frame.f_code.co_name == "model":
            solver = owner
        tb = tb.tb_next
    head = "Read a model only after check() == sat"
    last = observer.OBSERVER.last if observer.OBSERVER is not None else None
    pointer = getattr(solver, "solver", None) or getattr(solver, "optimize", None)
    if last is None:
        return f"{head}: no check() came before it (z3)"
    if pointer is not None and address(pointer) != last.solver:
        reason = solver.reason_unknown() if solver is not None else ""
        return f"{head}: z3 says {reason!r} (z3)" if reason and reason != "unknown" else (
            f"{head}: no check() of this solver answered sat (z3)")
    if last.result == observer.UNSAT:
        return f"{head}: the last check() answered unsat (z3)"
    if last.result == observer.SAT:
        return f"{head}: the solver changed after its last sat check (add, push, pop) (z3)"
    where = f" on line {last.line}" if last.line else ""
    why = "solver timeout" if last.timed_out else last.reason or "unknown"
    return f"{head}: the last check(){where} {UNKNOWN_WORDS} ({why}) (z3)"


_INT_LITERAL = re.compile(r"invalid literal for (int|float)\(\) with base 10: '[A-Za-z_]\w*'|"
                          r"could not convert string to float: '[A-Za-z_]\w*'")


def _type_hint(exc: BaseException) -> str:
    message = str(exc)
    if isinstance(exc, ValueError) and (found := _INT_LITERAL.search(message)):
        right = "Int" if "int()" in found.group() else "Real"
        return f"z3's constants are {right}('name'), with a capital letter"
    if isinstance(exc, TypeError) and re.search(r"'(\w+Ref)' object cannot be interpreted as an integer",
                                                message):
        return ("A z3 term is not a Python int: take its value from a model (m.eval(x).as_long()) "
                "or keep it symbolic with If, Sum, Select (z3)")
    return ""
