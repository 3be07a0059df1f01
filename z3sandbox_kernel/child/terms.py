"""Walking the terms of z3 assertions, each shared subterm once (child side: imports only z3)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import z3


def walk_terms(assertions: Iterable[z3.ExprRef]) -> Iterator[z3.ExprRef]:
    """Every distinct term of ``assertions`` (by z3's id), depth first: applications and their
    arguments, quantifiers and their bodies; a bound variable is a leaf.  A term DAG shared a
    million times is walked once."""
    seen: set[int] = set()
    todo: list[z3.ExprRef] = list(assertions)
    while todo:
        term = todo.pop()
        if term.get_id() in seen:
            continue
        seen.add(term.get_id())
        yield term
        if z3.is_app(term):
            todo.extend(term.children())
        elif z3.is_quantifier(term):
            todo.append(term.body())
