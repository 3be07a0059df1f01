"""The model of an SMT-LIB check, read back from the front end's private (get-model) answer as z3
values of the harness's own context (smt2.py says why the answer is asked, and why it only counts
when the check's assertions are true in it)."""

from __future__ import annotations

import re
from typing import Any

import z3

from .smt2_text import Smt2SyntaxError, items
from .terms import walk_terms


def model_from_text(text: str, assertions: list[z3.BoolRef], ctx: z3.Context
                    ) -> z3.ModelRef | None:
    """A model with the constants of a (get-model) answer, or None if there is no answer.

    Fast path: the answer's constants become declarations and equalities parsed in ONE call of
    z3's parser (z3 hash-conses declarations, so they are the assertions' own).  Where that cannot
    work (sorts the script declared itself, values that name auxiliary functions), each value is
    parsed alone with the assertions' declarations, and one that does not parse (or a function) is
    left out, as the verifier leaves out what it cannot fix."""
    body = text.strip()
    if not body.startswith("(") or body.startswith("(error"):
        return None
    inner = body[1:-1]
    constants = _constants(inner)
    model = z3.Model(ctx)
    if all(_BUILTIN_SORT.fullmatch(sort) for _, sort, _ in constants):
        declared = "".join(f"(declare-fun {name} () {sort})" for name, sort, _ in constants)
        equalities = "".join(f"(assert (= {name} {value}))" for name, _, value in constants)
        try:
            parsed = z3.parse_smt2_string(declared + equalities, ctx=ctx)
        except z3.Z3Exception:
            parsed = None
        if parsed is not None and len(parsed) == len(constants):
            _interpret(model, parsed)
            return model
    decls, sorts = _symbols(assertions)
    for name, _sort, value in constants:
        decl = decls.get(name.strip("|"))
        if decl is None or decl.arity() != 0:
            continue
        try:
            parsed = z3.parse_smt2_string(f"(assert (= {name} {value}))", sorts=sorts, decls=decls,
                                          ctx=ctx)
            model.update_value(decl, z3.simplify(parsed[0].arg(1)))  # (- 4) is -4
        except (z3.Z3Exception, IndexError):
            continue
    return model


def _interpret(model: z3.ModelRef, equalities: z3.AstVector) -> None:
    """Each ``(= name value)`` as the model's value of ``name``, its value simplified ((- 4) is
    -4), with z3's C calls alone: z3py's objects cost about 34 us a constant, and a model of an
    SMT-LIB check can hold thousands (bench/PROFILE.md, step 8)."""
    ctx = model.ctx.ref()
    for index in range(z3.Z3_ast_vector_size(ctx, equalities.vector)):
        equality = z3.Z3_ast_vector_get(ctx, equalities.vector, index)  # held by the vector
        name = z3.Z3_get_app_arg(ctx, z3.Z3_to_app(ctx, equality), 0)
        value = z3.Z3_simplify(ctx, z3.Z3_get_app_arg(ctx, z3.Z3_to_app(ctx, equality), 1))
        z3.Z3_inc_ref(ctx, value)  # new, and held by nothing until the model takes it
        try:
            z3.Z3_add_const_interp(ctx, model.model, z3.Z3_get_app_decl(ctx, z3.Z3_to_app(ctx, name)), value)
        finally:
            z3.Z3_dec_ref(ctx, value)


# Sorts z3 knows without a declaration of the script's: a constant of any other sort takes the
# slow path (a datatype or uninterpreted sort must not be declared a second time).
_BUILTIN_SORT = re.compile(r"Int|Real|Bool|String|RegLan|RoundingMode|Float(16|32|64|128)"
                           r"|\(_ (BitVec|FloatingPoint) \d+( \d+)?\)")


def _constants(model_text: str) -> list[tuple[str, str, str]]:
    """(name, sort, value) of each ``(define-fun name () sort value)`` in a (get-model) answer,
    read as tokens: a quoted name holds any parentheses and line breaks it likes."""
    found = []
    try:
        entries = items(model_text)
    except Smt2SyntaxError:
        return []
    for entry in entries:
        if not entry.startswith("(define-fun"):
            continue
        try:
            parts = items(entry[1:-1])
        except Smt2SyntaxError:
            continue
        if len(parts) == 5 and parts[0] == "define-fun" and parts[2] == "()":
            found.append((parts[1], parts[3], parts[4]))  # else a function, not a constant
    return found


def _symbols(assertions: list[z3.BoolRef]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every declaration (constants, functions, constructors) and sort the assertions use."""
    decls: dict[str, Any] = {}
    sorts: dict[str, Any] = {}
    for term in walk_terms(assertions):
        if z3.is_app(term):
            decl = term.decl()
            if decl.kind() in (z3.Z3_OP_UNINTERPRETED, z3.Z3_OP_DT_CONSTRUCTOR):
                decls.setdefault(decl.name(), decl)
            sort = term.sort()
            if sort.kind() in (z3.Z3_UNINTERPRETED_SORT, z3.Z3_DATATYPE_SORT):
                sorts.setdefault(sort.name(), sort)
    return decls, sorts
