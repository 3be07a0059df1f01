"""A model of the script's, read from its copy in a context of the harness's own.

Reading it in place would make no term, but z3 keeps the last term an API call returned alive (the
context's "last result"): a value read there outlives the script's own last result, and a numeral
the script makes next takes another id than in a plain run, which reorders its search
(observer.py's rule 3).  Translating a model writes only into the target context.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable

import z3

from . import models
from .handles import Pointer


def address(pointer: Pointer | int | None) -> int:
    value = pointer.value if isinstance(pointer, ctypes.c_void_p) else pointer
    return int(value or 0)


class BorrowedContext(z3.Context):  # type: ignore[misc, unused-ignore]  # z3 declares no types
    """A z3 ``Context`` around a raw context pointer, for wrapping what the harness reads (the
    script's own ``Context`` object is not reachable from a C call, and keeping it would keep it
    alive).  It owns nothing: it never deletes the context."""

    def __init__(self, raw: Pointer) -> None:  # no z3.Context.__init__: the context exists
        self.ctx = raw
        self.eh = None

    def __del__(self) -> None:
        pass


READER: list[z3.Context] = []  # the harness's own context for reading models, made by prepare()


def reader_context() -> z3.Context:
    """Made before the fork (harness.prepare): in the child, a new context would take the spare
    context meant for the script (instrument.adopt_spare_contexts)."""
    if not READER:
        READER.append(z3.Context())
    return READER[0]


def read_model(ctx: Pointer, model: Pointer | int, skip: Iterable[z3.ExprRef] = ()) -> models.ModelFields:
    """The fields of ``model`` (a raw model of context ``ctx``), in its own order, without the
    constants ``skip`` (the harness's core literals)."""
    reader = reader_context()
    try:
        copy = z3.ModelRef(z3.Z3_model_translate(ctx, model, reader.ref()), reader)
        constants = z3.Z3_model_get_num_consts(ctx, model)
        total = constants + z3.Z3_model_get_num_funcs(ctx, model)
    except z3.Z3Exception:
        return models.ModelFields()

    def decl_at(index: int) -> z3.FuncDeclRef:  # in the model's order (a copy's follows hashes)
        decl = (z3.Z3_model_get_const_decl(ctx, model, index) if index < constants
                else z3.Z3_model_get_func_decl(ctx, model, index - constants))
        return z3.FuncDeclRef(z3.Z3_translate(ctx, z3.Z3_func_decl_to_ast(ctx, decl), reader.ref()), reader)

    skip_ids = frozenset(models.decl_id(literal.translate(reader)) for literal in skip)
    return models.read_model(copy, skip_ids, (constants, total, decl_at))
