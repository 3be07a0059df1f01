"""One check of a script's as the observers keep it (observer.py), and an objective it set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import models
from .mirror import Mark

# Why an unsat of a solver with a user propagator (UserPropagateBase) is not checked again.
PROPAGATED = ("a user propagator took part in the check: its conflicts are the script's code, "
              "which no checker can replay")


@dataclass(kw_only=True)
class Record(models.CheckReport):
    """One check as it ended (``CheckReport``), and where to take the rest from while it lasts."""

    solver: int
    ctx: Any
    kind: str
    timed_out: bool = False
    mark: Mark | None = None  # the mirror's scope sizes at the check; None: it was incomplete
    assumptions: tuple[str, ...] = ()  # the asserts of the check's assumptions (check(a, b))
    changed: bool = False  # the script changed the solver since: its model is not this check's
    model: int = 0  # the model object the script asked for, while it lives
    index: int | None = None  # its CheckFrame's index, if it was sent (checks.py)


@dataclass
class Goal:
    """An objective the script gave an optimize object (objectives.py reads them after it)."""

    direction: str  # "maximize", "minimize" or "soft"
    term: int  # raw pointer (the optimize object holds it); 0 for a soft group
    group: str = ""  # a soft group's id
