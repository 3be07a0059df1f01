"""Turn a check's result, model and assertions into report fields (child side, after user code).

Every conversion is wrapped: a value z3 cannot render, or one too big for JSON, becomes text instead
of an exception, because the report must always be built.  The zygote applies the payload rules to
``byte_constants``; this module only reports what the model says.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from ..protocol import (
    INLINE_BYTE_CONSTANTS,
    MAX_ASSERTIONS_REPORT_BYTES,
    MAX_MODEL_REPORT_BYTES,
    ByteConstant,
    ChildReport,
    JsonValue,
    encode_value,
)

# Stop reading a model after this many constants: the work (and the report) must stay bounded.
MAX_MODEL_CONSTANTS = 2_000_000
# A value's z3 text (functions, arrays, datatypes) is cut here: it is for reading, not replay.
MAX_VALUE_TEXT = 20_000
# Python refuses to convert ints of more than 4300 digits to text (sys.get_int_max_str_digits),
# so json.dumps would fail on them: longer numerals stay z3 text.
MAX_INT_DIGITS = 4000
# Above this the assertions are left out of the report and the zygote skips verification.
MAX_ASSERTIONS_SMT2 = MAX_ASSERTIONS_REPORT_BYTES

# The script's name in its code objects, so tracebacks, faulthandler and warnings say `candidate.py`,
# not a scratch path (``__file__`` is still the file's full path in its folder, as a plain run's).
SCRIPT_NAME = "candidate.py"
# reason_unknown() when a solver's own timeout expired (Solver: "timeout", Optimize: "canceled").
TIMEOUT_REASONS = frozenset({"timeout", "canceled"})
MEMORY_WORDS = ("out of memory", "max. memory exceeded")

_BYTE_NAME = re.compile(r"byte_(0|[1-9][0-9]*)")
# Sorts whose values z3's SMT-LIB parser reads back, so a verifier can fix them.
_SMT2_SORT_KINDS = frozenset(
    {z3.Z3_BOOL_SORT, z3.Z3_INT_SORT, z3.Z3_REAL_SORT, z3.Z3_BV_SORT, z3.Z3_FLOATING_POINT_SORT}
)


@dataclass
class ModelFields:
    """The report fields a model yields."""

    model: dict[str, JsonValue] = field(default_factory=dict)
    byte_constants: list[ByteConstant] = field(default_factory=list)  # those that break the rules
    byte_values: dict[int, int] = field(default_factory=dict)  # index -> byte, for well-formed ones
    model_smt2: list[list[str]] = field(default_factory=list)
    # JSON bytes of model and model_smt2 so far (about): past MAX_MODEL_REPORT_BYTES, no more
    # entries are added, so the report stays within the zygote's budget (protocol.report_budget).
    size: int = 0
    inline_bytes: int = 0  # 8-bit bit-vector byte_N also listed in model (up to INLINE_BYTE_CONSTANTS)

    def full(self) -> bool:
        return self.size > MAX_MODEL_REPORT_BYTES

    def byte_runs(self) -> list[list[Any]]:
        """Well-formed byte_N as [[start, hex], ...]: 2 characters a byte instead of ~60 of JSON,
        so a 1 MiB payload fits in the report."""
        runs: list[list[Any]] = []
        start, chunk, previous = -1, bytearray(), -2
        for index in sorted(self.byte_values):
            if index != previous + 1 and chunk:
                runs.append([start, chunk.hex()])
                chunk = bytearray()
            if not chunk:
                start = index
            chunk.append(self.byte_values[index])
            previous = index
        if chunk:
            runs.append([start, chunk.hex()])
        return runs


def _well_formed(byte: ByteConstant) -> bool:
    value = byte["value"]
    shape_ok = (byte["sort"] == "bv" and byte["width"] == 8) or byte["sort"] == "int"
    return shape_ok and isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 255


def clean_text(text: str, limit: int | None = None) -> str:
    """Text that survives UTF-8 JSON (no lone surrogates), cut to ``limit`` with a note."""
    if limit is not None and len(text) > limit:
        text = f"{text[:limit]}… [truncated {len(text) - limit} chars]"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _numeral(text: str) -> int | str:
    return int(text) if len(text) <= MAX_INT_DIGITS else text


def python_value(value: z3.ExprRef) -> Any:
    """The Python value of a model value: int, bool, Fraction, str; other sorts as their z3 text."""
    try:
        if z3.is_true(value):
            return True
        if z3.is_false(value):
            return False
        if z3.is_int_value(value) or z3.is_bv_value(value):
            return _numeral(value.as_string())
        if z3.is_rational_value(value):
            numerator = _numeral(value.numerator().as_string())
            denominator = _numeral(value.denominator().as_string())
            if isinstance(numerator, int) and isinstance(denominator, int):
                return Fraction(numerator, denominator)
            return clean_text(value.sexpr(), MAX_VALUE_TEXT)
        if z3.is_algebraic_value(value):
            return clean_text(value.as_decimal(20))
        if z3.is_string_value(value):
            return clean_text(value.as_string())
    except Exception:  # fall through to the text form
        pass
    return value_text(value)


def value_text(value: Any) -> str:
    """z3's own text for a value, capped; never raises."""
    try:
        return clean_text(str(value), MAX_VALUE_TEXT)
    except Exception as exc:
        return f"<value could not be printed: {type(exc).__name__}>"


def _sort_name(value: z3.ExprRef) -> tuple[str, int | None]:
    sort = value.sort()
    kind = sort.kind()
    if kind == z3.Z3_BV_SORT:
        return "bv", sort.size()
    names = {z3.Z3_INT_SORT: "int", z3.Z3_BOOL_SORT: "bool", z3.Z3_REAL_SORT: "real"}
    return names.get(kind, clean_text(str(sort), 200)), None


def _byte_constant(name: str, value: z3.ExprRef, encoded: JsonValue) -> ByteConstant | None:
    match = _BYTE_NAME.fullmatch(name)
    if match is None or len(match.group(1)) > MAX_INT_DIGITS:
        return None
    sort, width = _sort_name(value)
    return {"name": name, "index": int(match.group(1)), "sort": sort, "width": width,
            "value": encoded}


def _smt2_pair(decl: z3.FuncDeclRef, value: z3.ExprRef) -> list[str] | None:
    sort = value.sort()
    basic = sort.kind() in _SMT2_SORT_KINDS or z3.is_string_sort(sort)
    if not basic or z3.is_algebraic_value(value):
        return None  # (root-obj ...) and non-basic values are left free during verification
    return [decl().sexpr(), value.sexpr()]


def read_model(model: z3.ModelRef, skip_ids: frozenset[int] = frozenset()) -> ModelFields:
    """Every constant and function of ``model`` except the declarations in ``skip_ids``."""
    fields = ModelFields()
    try:
        constants = min(z3.Z3_model_get_num_consts(model.ctx.ref(), model.model),
                        MAX_MODEL_CONSTANTS)
        total = len(model)
    except Exception:
        return fields
    for index in range(constants):
        _read_constant(model, index, skip_ids, fields)
    for index in range(constants, min(total, constants + MAX_MODEL_CONSTANTS)):
        try:
            decl = model[index]
            name = clean_text(decl.name(), 1000)
            if not fields.full() and name not in fields.model:
                shown = value_text(model.get_interp(decl))
                fields.model[name] = shown
                fields.size += len(name) + len(shown) + 8
        except Exception:  # one bad entry must not lose the rest
            continue
    return fields


def _read_constant(model: z3.ModelRef, index: int, skip_ids: frozenset[int],
                   fields: ModelFields) -> None:
    try:
        decl = model[index]
        if decl.get_id() in skip_ids:
            return
        value = model.get_interp(decl)
        name = clean_text(decl.name(), 1000)
        encoded = encode_value(python_value(value))
        if name in fields.model:
            return  # two constants of one name (different sorts): the first one is reported
        byte = _byte_constant(name, value, encoded)
        if byte is not None and byte["index"] in fields.byte_values:
            return  # as above, for a byte_N that went to byte_runs only
        if byte is not None and _well_formed(byte):
            fields.byte_values[byte["index"]] = int(byte["value"])  # type: ignore[arg-type]
            if byte["sort"] == "bv":
                if fields.inline_bytes >= INLINE_BYTE_CONSTANTS:
                    return  # in byte_runs only: the zygote puts it back (protocol.INLINE_BYTE_CONSTANTS)
                fields.inline_bytes += 1
        elif byte is not None:
            fields.byte_constants.append(byte)
        if fields.full():
            return
        fields.model[name] = encoded
        fields.size += len(name) + len(str(encoded)) + 8
        pair = _smt2_pair(decl, value)
        if pair is not None:
            fields.model_smt2.append([clean_text(pair[0]), clean_text(pair[1])])
            fields.size += len(pair[0]) + len(pair[1]) + 8
    except Exception:
        return


def assertions_smt2(assertions: Iterable[z3.BoolRef], ctx: z3.Context) -> str | None:
    """The assertions as an SMT-LIB 2 script with declarations and no (check-sat), or None when it
    is larger than ``MAX_ASSERTIONS_SMT2`` or cannot be printed."""
    try:
        formulas = list(assertions)
        vector = (z3.Ast * len(formulas))()
        for index, formula in enumerate(formulas):
            vector[index] = formula.as_ast()
        text = z3.Z3_benchmark_to_smtlib_string(
            ctx.ref(), "z3sandbox candidate", "", "unknown", "", len(formulas), vector,
            z3.BoolVal(True, ctx).as_ast(),
        )
    except (Exception, MemoryError):
        return None
    if len(text) > MAX_ASSERTIONS_SMT2:
        return None
    return clean_text(text.replace("(check-sat)\n", ""))


class CheckRecord:
    """One check() as it ended: what a report needs, taken before the script changes the solver
    (a model or core is gone after the next add())."""

    __slots__ = ("assertions", "core", "line", "model", "reason", "result", "solver")

    def __init__(self, solver: Any, result: z3.CheckSatResult) -> None:
        self.solver = solver
        self.result = result
        self.model: z3.ModelRef | None = None
        self.assertions: z3.AstVector | None = None
        self.core: z3.AstVector | None = None
        self.reason = ""
        self.line = _calling_line()  # the script's line that checked (a timeout names it)

    @classmethod
    def take(cls, solver: Any, result: z3.CheckSatResult,
             unsat_core: Callable[[Any], z3.AstVector] | None) -> CheckRecord:
        record = cls(solver, result)
        try:
            if result == z3.sat:
                record.model = solver.model()
                record.assertions = solver.assertions()
            elif result == z3.unsat:
                if unsat_core is not None:
                    record.core = unsat_core(solver)
            else:
                record.reason = str(solver.reason_unknown())
        except Exception:  # the result itself is still worth reporting
            pass
        return record


def check_report(record: CheckRecord, tracked: dict[int, tuple[Any, int | None, str]],
                 our_ids: frozenset[int], cores: bool) -> ChildReport:
    """The report for a script whose last check is ``record``.  ``tracked`` maps tracking literals
    to script lines (cores=True); ``our_ids`` are the literals the harness added, never reported."""
    if record.result == z3.sat:
        report: ChildReport = {"outcome": "sat"}
        ours = frozenset(tracked[i][0].decl().get_id() for i in our_ids)  # decls, not terms
        fields = read_model(record.model, ours) if record.model is not None else ModelFields()
        report["model"] = fields.model
        report["byte_constants"] = fields.byte_constants
        report["byte_runs"] = fields.byte_runs()
        if record.assertions is not None:
            formulas = _untracked(record.assertions, our_ids)
            text = assertions_smt2(formulas, record.solver.ctx)
            if text is not None:
                report["assertions_smt2"] = text
                report["model_smt2"] = fields.model_smt2
        return report
    if record.result == z3.unsat:
        report = {"outcome": "unsat"}
        if cores:
            report["unsat_core"] = core_lines(record.core, tracked)
        return report
    reason = clean_text(record.reason, 2000)
    if any(word in reason for word in MEMORY_WORDS):
        return {"outcome": "memory_error", "reason": f"z3 ran out of memory: {reason}"}
    return {"outcome": "unknown", "reason": reason, "solver_timeout": reason in TIMEOUT_REASONS,
            "line": record.line}


def _calling_line() -> int | None:
    """The innermost line of the script on the stack (its frames' file is ``SCRIPT_NAME``): a
    walk over frames, which touches nothing of the script's."""
    try:
        frame: types.FrameType | None = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename != SCRIPT_NAME:
            frame = frame.f_back
        return frame.f_lineno if frame is not None else None
    except Exception:  # never fail a check for its line
        return None


def _untracked(assertions: z3.AstVector, our_ids: frozenset[int]) -> list[z3.BoolRef]:
    """The assertions as the script wrote them: ``Implies(literal, f)`` from cores=True is ``f``."""
    formulas = list(assertions)
    if not our_ids:
        return formulas
    return [f.arg(1) if z3.is_implies(f) and f.arg(0).get_id() in our_ids else f
            for f in formulas]


def core_lines(core: z3.AstVector | None,
               tracked: dict[int, tuple[Any, int | None, str]]) -> list[list[Any]]:
    """[[line, source], ...] for the core's tracked literals: unique, sorted by line."""
    lines: set[tuple[int, str]] = set()
    for literal in core if core is not None else []:
        entry = tracked.get(literal.get_id())
        if entry is not None and entry[1] is not None:
            lines.add((entry[1], clean_text(entry[2], 500)))
    return [[line, text] for line, text in sorted(lines)]
