"""Turn a check's result, model and assertions into report fields (child side, after user code).

Every conversion is wrapped: a value z3 cannot render, or one too big for JSON, becomes text instead
of an exception, because the report must always be built.  The zygote applies the payload rules to
``byte_constants``; this module only reports what the model says.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from ..protocol import (
    INLINE_BYTE_CONSTANTS,
    MAX_ASSERTIONS_REPORT_BYTES,
    MAX_MODEL_REPORT_BYTES,
    SHOWN_MODEL_MAX_ENTRIES,
    ByteConstant,
    ByteRun,
    ChildReport,
    JsonValue,
    encode_value,
    join_pairs,
)
from .handles import Pointer

# Stop reading a model after this many constants: the work (and the report) must stay bounded.
MAX_MODEL_CONSTANTS = 2_000_000
# A value's z3 text (functions, arrays, datatypes) is cut here: it is for reading, not replay.
MAX_VALUE_TEXT = 20_000
TERM_CHARS = 500  # an objective's term, or a soft group's id, is cut here (objectives.py)
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

# byte_N that break the payload rules, listed for the error they make: the first names it, and a
# million of them would make a frame of a million objects (protocol.MAX_FRAME_VALUES).
MAX_BYTE_ERRORS = 1000
_BYTE_NAME = re.compile(r"byte_(0|[1-9][0-9]*)")
# Sorts whose values z3's SMT-LIB parser reads back, so a verifier can fix them.
_SMT2_SORT_KINDS = frozenset(
    {z3.Z3_BOOL_SORT, z3.Z3_INT_SORT, z3.Z3_REAL_SORT, z3.Z3_BV_SORT, z3.Z3_FLOATING_POINT_SORT}
)


@dataclass
class ModelFields:
    """The report fields a model yields."""

    # What is shown: the first SHOWN_MODEL_MAX_ENTRIES constants (the host keeps no more); every
    # constant is in ``model_smt2``, for the verifier.  A report of a million model entries would
    # cost the zygote a gigabyte to decode (zygote/frames.py bounds what it decodes).
    model: dict[str, JsonValue] = field(default_factory=dict)
    omitted: int = 0  # constants left out of ``model`` past SHOWN_MODEL_MAX_ENTRIES
    names: set[str] = field(default_factory=set)  # every constant's name read so far
    byte_constants: list[ByteConstant] = field(default_factory=list)  # those that break the rules
    byte_values: dict[int, int] = field(default_factory=dict)  # index -> byte, for well-formed ones
    model_smt2: list[tuple[str, str]] = field(default_factory=list)
    # JSON bytes of model and model_smt2 so far (about): past MAX_MODEL_REPORT_BYTES, no more
    # entries are added, so the report stays within the zygote's budget (protocol.report_budget).
    size: int = 0
    inline_bytes: int = 0  # 8-bit bit-vector byte_N also listed in model (up to INLINE_BYTE_CONSTANTS)

    def full(self) -> bool:
        return self.size > MAX_MODEL_REPORT_BYTES

    def show(self, name: str, value: JsonValue) -> None:
        """``name``'s value in ``model``, while it has room (else counted as omitted)."""
        self.names.add(name)
        if len(self.model) < SHOWN_MODEL_MAX_ENTRIES:
            self.model[name] = value
        else:
            self.omitted += 1

    def byte_runs(self) -> list[ByteRun]:
        """Well-formed byte_N as [[start, hex], ...]: 2 characters a byte instead of ~60 of JSON,
        so a 1 MiB payload fits in the report."""
        runs: list[ByteRun] = []
        start, chunk, previous = -1, bytearray(), -2
        for index in sorted(self.byte_values):
            if index != previous + 1 and chunk:
                runs.append((start, chunk.hex()))
                chunk = bytearray()
            if not chunk:
                start = index
            chunk.append(self.byte_values[index])
            previous = index
        if chunk:
            runs.append((start, chunk.hex()))
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


def python_value(value: z3.ExprRef) -> bool | int | Fraction | str:
    """The Python value of a model value: int, bool, Fraction, str; other sorts as their z3 text."""
    try:
        if z3.is_true(value):
            return True
        if z3.is_false(value):
            return False
        if z3.is_int_value(value) or z3.is_bv_value(value):
            return _numeral(value.as_string())
        if z3.is_rational_value(value):
            # z3's "n/d" text, not numerator() and denominator(): those make terms (observer.py)
            numerator_text, _, denominator_text = value.as_string().partition("/")
            numerator, denominator = _numeral(numerator_text), _numeral(denominator_text or "1")
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


def value_text(value: object) -> str:
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


def _byte_constant(name: str, sort: str, width: int | None, encoded: JsonValue) -> ByteConstant | None:
    match = _BYTE_NAME.fullmatch(name)
    if match is None or len(match.group(1)) > MAX_INT_DIGITS:
        return None
    return {"name": name, "index": int(match.group(1)), "sort": sort, "width": width, "value": encoded}


@dataclass(frozen=True)
class _Value:
    """What a model says of one constant: its Python value, its sort, and its SMT-LIB text when a
    verifier can fix it (None: left free)."""

    python: Any
    sort: str
    width: int | None
    smt2: str | None


_BASIC_SORTS = {z3.Z3_BOOL_SORT: "bool", z3.Z3_INT_SORT: "int", z3.Z3_REAL_SORT: "real", z3.Z3_BV_SORT: "bv"}


def _basic_value(ctx: Pointer, raw: Pointer) -> _Value | None:
    """A true/false, integer, rational or bit-vector numeral read with z3's C calls alone; None for
    any other value (then z3py reads it: ``_value``).  A script that enumerates solutions has every
    model it reads read here, and z3py's objects cost about 56 C calls a constant against 6
    (bench/PROFILE.md, "Solve time")."""
    if not raw:
        return None
    sort = z3.Z3_get_sort(ctx, raw)
    kind = z3.Z3_get_sort_kind(ctx, sort)
    name = _BASIC_SORTS.get(kind)
    if name is None:
        return None
    if kind == z3.Z3_BOOL_SORT:
        truth = z3.Z3_get_bool_value(ctx, raw)
        if truth == z3.Z3_L_UNDEF:
            return None
        return _Value(truth == z3.Z3_L_TRUE, "bool", None, "true" if truth == z3.Z3_L_TRUE else "false")
    if not z3.Z3_is_numeral_ast(ctx, raw):
        return None
    text = str(z3.Z3_get_numeral_string(ctx, raw))
    smt2 = str(z3.Z3_ast_to_string(ctx, raw))
    if kind == z3.Z3_REAL_SORT:
        numerator_text, _, denominator_text = text.partition("/")
        numerator, denominator = _numeral(numerator_text), _numeral(denominator_text or "1")
        if isinstance(numerator, int) and isinstance(denominator, int):
            return _Value(Fraction(numerator, denominator), name, None, smt2)
        return _Value(clean_text(smt2, MAX_VALUE_TEXT), name, None, smt2)
    width = int(z3.Z3_get_bv_sort_size(ctx, sort)) if kind == z3.Z3_BV_SORT else None
    return _Value(_numeral(text), name, width, smt2)


def _value(model: z3.ModelRef, decl: z3.FuncDeclRef) -> _Value:
    ctx = model.ctx.ref()
    basic = _basic_value(ctx, z3.Z3_model_get_const_interp(ctx, model.model, decl.ast))
    if basic is not None:
        return basic
    value = model.get_interp(decl)
    sort, width = _sort_name(value)
    try:
        pair = _smt2_pair(decl, value)
    except Exception:  # a value that cannot be given back to z3 is left free, not dropped
        pair = None
    return _Value(python_value(value), sort, width, pair[1] if pair is not None else None)


def _smt2_pair(decl: z3.FuncDeclRef, value: z3.ExprRef) -> list[str] | None:
    sort = value.sort()
    basic = sort.kind() in _SMT2_SORT_KINDS or z3.is_string_sort(sort)
    if not basic or z3.is_algebraic_value(value):
        return None  # (root-obj ...) and non-basic values are left free during verification
    return [_symbol(decl), value.sexpr()]


_PLAIN_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _symbol(decl: z3.FuncDeclRef, name: str = "") -> str:
    """A constant's name as z3 prints it in SMT-LIB (``|a b|`` quoted), read from its declaration:
    ``decl().sexpr()`` would make the application term, and no term is made in a script's context
    while it runs (observer.py).  ``name``, its name already read: a letters-digits-underscore name
    is printed as it is (z3 quotes by characters, not words), without asking z3."""
    if name and _PLAIN_SYMBOL.fullmatch(name):
        return name
    text = str(z3.Z3_func_decl_to_string(decl.ctx_ref(), decl.ast))[len("(declare-fun "):]
    if text.startswith("|"):
        return text[: text.index("|", 1) + 1]
    return text.split(" ", 1)[0]


def decl_id(constant: z3.ExprRef) -> int:
    return int(z3.Z3_get_ast_id(constant.ctx_ref(), z3.Z3_get_app_decl(constant.ctx_ref(),
                                                                       constant.as_ast())))


def read_model(model: z3.ModelRef, skip_ids: frozenset[int] = frozenset(),
               order: tuple[int, int, Callable[[int], z3.FuncDeclRef]] | None = None) -> ModelFields:
    """Every constant and function of ``model`` except the declarations in ``skip_ids``, in
    ``order`` when given (its constants, its declarations in all, and the ``index``-th one of
    ``model``), else in the model's own."""
    fields = ModelFields()
    try:
        constants, total, decl_at = order or (
            z3.Z3_model_get_num_consts(model.ctx.ref(), model.model), len(model), model.__getitem__)
        constants = min(constants, MAX_MODEL_CONSTANTS)
    except Exception:
        return fields
    for index in range(constants):
        _read_constant(model, decl_at, index, skip_ids, fields)
    for index in range(constants, min(total, constants + MAX_MODEL_CONSTANTS)):
        try:
            decl = decl_at(index)
            name = clean_text(decl.name(), 1000)
            if not fields.full() and name not in fields.names:
                shown = value_text(model.get_interp(decl))
                fields.show(name, shown)
                fields.size += len(name) + len(shown) + 8
        except Exception:  # one bad entry must not lose the rest
            continue
    return fields


def _read_constant(model: z3.ModelRef, decl_at: Callable[[int], z3.FuncDeclRef], index: int,
                   skip_ids: frozenset[int], fields: ModelFields) -> None:
    try:
        decl = decl_at(index)
        if decl.get_id() in skip_ids:
            return
        value = _value(model, decl)
        name = clean_text(decl.name(), 1000)
        encoded = encode_value(value.python)
        if name in fields.names:
            return  # two constants of one name (different sorts): the first one is reported
        byte = _byte_constant(name, value.sort, value.width, encoded)
        if byte is not None and byte["index"] in fields.byte_values:
            return  # as above, for a byte_N that went to byte_runs only
        if byte is not None and _well_formed(byte):
            fields.byte_values[byte["index"]] = int(byte["value"])  # type: ignore[arg-type]
            if byte["sort"] == "bv":
                if fields.inline_bytes >= INLINE_BYTE_CONSTANTS:
                    return  # in byte_runs only: the zygote puts it back (protocol.INLINE_BYTE_CONSTANTS)
                fields.inline_bytes += 1
        elif byte is not None and len(fields.byte_constants) < MAX_BYTE_ERRORS:
            fields.byte_constants.append(byte)
        if fields.full():
            return
        fields.show(name, encoded)
        fields.size += len(name) + len(str(encoded)) + 8
        if value.smt2 is not None:
            pair = (clean_text(_symbol(decl, name)), clean_text(value.smt2))
            fields.model_smt2.append(pair)
            fields.size += len(pair[0]) + len(pair[1]) + 8
    except Exception:
        return


def benchmark(ctx: Pointer, formulas: list[int], limit: int = MAX_ASSERTIONS_SMT2) -> str | None:
    """Formulas (raw pointers of ``ctx``) as an SMT-LIB 2 script of declarations and one assert
    each, no (check-sat); None when larger than ``limit`` or not printable.  The last
    formula is z3's "formula" argument, so no ``true`` term is asked for."""
    if not formulas:
        return ""
    try:
        vector = ctypes.cast((ctypes.c_void_p * len(formulas))(*formulas), ctypes.POINTER(z3.Ast))
        text = z3.Z3_benchmark_to_smtlib_string(ctx, "z3sandbox candidate", "", "unknown", "",
                                               len(formulas) - 1, vector, formulas[-1])
    except (Exception, MemoryError):
        return None
    if len(text) > limit:
        return None
    return clean_text(text.replace("(check-sat)\n", ""))


@dataclass
class CheckReport:
    """What a report says of a check: its result, and what was taken for it."""

    result: int  # z3.Z3_L_TRUE, Z3_L_FALSE or Z3_L_UNDEF
    reason: str = ""
    fields: ModelFields | None = None
    assertions: str | None = None
    core: list[list[Any]] = field(default_factory=list)
    core_smt2: list[str] | None = None  # the core's formulas as asserts (observer._core)
    assumed: bool = False  # checked under assumptions that the assertions text could not hold
    propagated: bool = False  # a user propagator took part: an unsat is not re-checked
    why: str = ""  # why its assertions may not be known (Mirror.why), said if they are not
    line: int | None = None  # the script line that checked (a timeout names it)


def check_report(record: CheckReport, cores: bool) -> ChildReport:
    """The report for a script whose last check is ``record``."""
    if record.result == z3.Z3_L_TRUE:
        report: ChildReport = {"outcome": "sat"}
        fields = record.fields or ModelFields()
        report["model"] = fields.model
        if fields.omitted:
            report["model_omitted"] = fields.omitted
        report["byte_constants"] = fields.byte_constants
        report["byte_runs"] = fields.byte_runs()
        if record.assertions is not None:
            report["assertions_smt2"] = record.assertions
            report["model_smt2"] = join_pairs(fields.model_smt2)
        else:
            report["unconfirmable"] = _unconfirmable(record)
        return report
    if record.result == z3.Z3_L_FALSE:
        report = {"outcome": "unsat"}
        if record.assertions is not None and not record.assumed and not record.propagated:
            report["assertions_smt2"] = record.assertions  # for the verifier to check it again
        else:
            report["unconfirmable"] = _unconfirmable(record)
        if cores:
            report["unsat_core"] = [(line, text) for line, text in record.core]
            if record.core_smt2 is not None and record.assertions is not None:
                report["core_smt2"] = record.core_smt2
        return report
    reason = clean_text(record.reason, 2000)
    if any(word in reason for word in MEMORY_WORDS):
        return {"outcome": "memory_error", "reason": f"z3 ran out of memory: {reason}"}
    return {"outcome": "unknown", "reason": reason, "solver_timeout": reason in TIMEOUT_REASONS,
            "line": record.line}


def _unconfirmable(record: CheckReport) -> str:
    """Why the checker is not given the assertions of a decisive answer."""
    if record.propagated and record.result == z3.Z3_L_FALSE:
        return record.why
    if record.assumed:
        return "its check's assumptions could not be printed as SMT-LIB"
    return record.why or "the sandbox did not learn the assertions it checked"
