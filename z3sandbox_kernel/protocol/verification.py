"""The verifier's messages: what the zygote asks a verifier (a fresh child that ran no user code,
child/confirm.py) to check, and its word on it (protocol/__init__.py describes the roles)."""

from __future__ import annotations

from typing import Literal, TypedDict

from .limits import Limits
from .messages import ByteConstant, ByteRun, Ranges, Smt2Pairs
from .wire import JsonValue

# ------------------------------------------------------------------------------ verifier -> zygote

class CheckedModel(TypedDict, total=False):
    """A verifier's word on one further model (``VerifyReport.more``): as ``VerifyReport``."""

    verified: bool | None
    reason: str
    model: dict[str, JsonValue]
    byte_constants: list[ByteConstant]
    byte_runs: list[ByteRun]
    index: int  # a check's model: its check (CheckToVerify.index)


class CheckedObjective(TypedDict):
    """The verifier's word on one objective: its value in the checked model, and whether a better
    one exists (``Objective.optimal``)."""

    value: JsonValue
    optimal: bool | None
    # True when ``value`` is the checked model's value of the term, as the verifier evaluated it;
    # False when the verifier could not read the term: the value is then the candidate's claim.
    checked: bool


class _VerifyReportRequired(TypedDict):
    verified: bool | None  # None: could not be decided (e.g. unsupported sorts, unknown)


class VerifyReport(_VerifyReportRequired, total=False):
    v: int
    type: Literal["result"]
    reason: str
    # When decided: the model that was checked, as a ChildReport holds one.  It is the result's
    # model and payload (zygote/classify.py): what is shown is what was verified, never what the
    # candidate reported beside it.
    model: dict[str, JsonValue]
    byte_constants: list[ByteConstant]
    byte_runs: list[ByteRun]
    more: list[CheckedModel]  # the further models (VerifyRequest.more_models_smt2), in order
    # Solvers that confirmed the answer (the model, the unsat, the core) in this process, why a
    # checker contradicts it, and what was not confirmed (out of budget, not cross-checked: ...).
    confirmed_by: list[str]
    disputed: str
    unconfirmed: str
    checked_objectives: list[CheckedObjective]  # VerifyRequest.objectives, in order
    # z3's word, sent before a second solver's (cross_check): the final report follows it, and
    # if it never comes (the second solver ran out of its own budget) this one stands.
    partial: bool
    checks: list[CheckedModel]  # the checks' models (VerifyRequest.checks), in order


# ------------------------------------------------------------------------------ zygote -> verifier

class CheckToVerify(TypedDict):
    """A check's model and its assertions: ranges into ``VerifyRequest.check_asserts`` and
    ``check_declarations`` (each check's set is a prefix or a few runs of one list)."""

    index: int
    assertions: Ranges
    declared: Ranges
    model_smt2: Smt2Pairs


class ObjectiveToCheck(TypedDict):
    """An objective of a sat ``Optimize`` answer, as the verifier checks it (``Objective``)."""

    term_smt2: str | None  # None: the harness could not write it as SMT-LIB (not checked)
    direction: str
    value: JsonValue


class VerifyRequest(TypedDict, total=False):
    """zygote -> verifier (a fresh child, child/verify.py): the model to re-check, or, for a spare
    forked before any model existed, ``spare`` (its request comes later, with ``limits``)."""

    assertions_smt2: str
    model_smt2: Smt2Pairs
    timeout_s: float
    require: list[str]
    spare: bool
    limits: Limits
    more_models_smt2: list[Smt2Pairs]  # models=N: each further model's pairs, checked one by one
    core_names: list[str]  # an SMT-LIB unsat's (get-unsat-core) names (ChildReport.core_names)
    script_smt2: str  # an SMT-LIB candidate's script, as the zygote holds it: the assertions come from it
    outcome: str  # the answer to confirm: "sat" (absent: sat) or "unsat"
    core_smt2: list[str]  # unsat with cores: the core's asserts (ChildReport.core_smt2)
    objectives: list[ObjectiveToCheck]  # sat from an Optimize
    cross_check: str | None  # "cvc5": a second solver checks the same text
    checks: list[CheckToVerify]  # the models the script read at its checks, each on its own
    check_asserts: list[str]  # the assertion and declaration texts they take ranges of
    check_declarations: list[str]
