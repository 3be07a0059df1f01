"""The repair loop: generate scripts, run them, feed back what went wrong, until the answer is the
one asked for.

``repair(generate, rounds=3, k=1, options, until=..., ceilings=..., **changes)`` calls
``generate(feedback)`` (``None`` in the first round) for scripts, runs them in the sandbox, and
stops when the round is settled (``until``):

* ``"clean"`` (the default): a verified sat with no error and no kill (an enumeration that ends on
  its own: its last check's unsat, confirmed, after verified models), or an unsat every candidate
  gives, each confirmed by a checker;
* ``"expected"`` (the default when ``expected=`` is given): clean, and the vote is the verdict
  expected; an unexpected unsat is run again with cores, and the core's script lines go in the
  feedback;
* ``"any_model"``: a verified model, wherever the script read it (a script that fails after
  reading one counts), or a unanimous unsat: the loop of earlier versions;
* a callable ``until(result) -> bool``.

Otherwise the next round's ``Feedback`` (agents/feedback.py) says, per candidate, what happened.
``generate`` may return an ``Attempt`` to ask for other limits (a solver timeout raised for a fix
that is right but slow), each at most its ceiling; a request over one runs at the ceiling, and the
next feedback says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ..contracts.limits import DEFAULT_LIMITS, LIMIT_FIELDS, Limits, number
from ..contracts.options import RepairRound, RunOptions
from ..contracts.results import CandidateResult, RunResult
from ..protocol.roles import Kill
from ..protocol.verdicts import Verdict
from .feedback import (
    FEEDBACK_BYTES,
    CandidateFeedback,
    Feedback,
    candidate_feedback,
    feedback_for,
    one_or_each,
)

__all__ = ["FEEDBACK_BYTES", "Attempt", "CandidateFeedback", "Feedback", "candidate_feedback", "clean",
           "feedback_for", "repair", "settled"]

if TYPE_CHECKING:
    from ..host.sandbox import Sandbox

Scripts = str | Sequence[str] | Mapping[str, str]
Until = Literal["clean", "expected", "any_model"] | Callable[[RunResult], bool]
UNTIL_WORDS = ("clean", "expected", "any_model")


@dataclass(frozen=True)
class Attempt:
    """What ``generate`` may return instead of scripts: the scripts, and the limits it asks the
    round to run under (``{"timeout_s": 20}``), each at most ``repair()``'s ceiling."""

    scripts: Scripts
    limits: Mapping[str, float] = field(default_factory=dict)


def found_models(candidate: CandidateResult) -> bool:
    """The candidate's script read verified models at its checks (an enumeration that ends on
    ``unsat`` found them all the same)."""
    return any(check.verified for check in candidate.checks)


def clean(candidate: CandidateResult, verify: bool = True) -> bool:
    """A clean finish: no error, no kill, and a verified sat or a confirmed unsat (unconfirmed
    only when the run does not verify)."""
    if candidate.error or candidate.kill is not None or candidate.disputed:
        return False
    if candidate.verdict is Verdict.SAT:
        return candidate.verified is True or (not verify and candidate.verified is None)
    if candidate.verdict is Verdict.UNSAT:
        return bool(candidate.confirmed_by) or not verify
    return False


def _answering(result: RunResult) -> list[CandidateResult]:
    """The candidates that ran to an end of their own (a race's losers were cancelled)."""
    return [c for c in result.candidates if c.kill not in (Kill.RACE, Kill.CANCEL)]


def settled_clean(result: RunResult, verify: bool = True) -> bool:
    """The vote's sat is a clean candidate's, or every candidate gave a clean unsat."""
    if result.verdict is Verdict.SAT:
        return any(c.verdict is Verdict.SAT and clean(c, verify) for c in result.candidates)
    answering = _answering(result)
    return (result.verdict is Verdict.UNSAT and bool(answering)
            and all(c.verdict is Verdict.UNSAT and clean(c, verify) for c in answering))


def settled_any_model(result: RunResult) -> bool:
    """A verified sat model (the vote's, or one a script read at its checks), or unsat from every
    candidate: the loop's rule before ``until``."""
    best = result.best
    if result.verdict is Verdict.SAT and best is not None and best.verified:
        return True
    if any(found_models(candidate) for candidate in result.candidates):
        return True
    return bool(result.candidates) and all(c.verdict is Verdict.UNSAT for c in result.candidates)


def settled(result: RunResult, until: Until = "clean", expected: Sequence[str | None] = (),
            verify: bool = True) -> bool:
    """Whether ``result`` ends the loop under ``until`` (``expected``: per candidate, or one)."""
    if callable(until):
        return bool(until(result))
    if until == "any_model":
        return settled_any_model(result)
    if not settled_clean(result, verify):
        return False
    wanted = {value for value in expected if value is not None}
    return until == "clean" or not wanted or result.verdict.value in wanted


def _as_scripts(scripts: Scripts) -> tuple[list[str], list[str | None] | None]:
    """(scripts, labels) from what ``generate`` returned: a str, a list of str, or a dict
    name -> script."""
    if isinstance(scripts, str):
        return [scripts], None
    if isinstance(scripts, Mapping):
        return [str(s) for s in scripts.values()], [str(name) for name in scripts]
    return list(scripts), None


def default_ceilings(limits: Limits) -> Limits:
    """The most a generator may ask for by default: each limit's default, or the caller's own
    limit where that is higher."""
    return Limits(**{spec.name: max(getattr(limits, spec.name), getattr(DEFAULT_LIMITS, spec.name))
                     for spec in LIMIT_FIELDS})


def asked_limits(base: Limits, asked: Mapping[str, float], ceilings: Limits) -> tuple[Limits, list[str]]:
    """``base`` with the limits a generator asked for, each at most its ceiling; the notes on what
    was asked over one.  An unknown name or a value a limit cannot take is a ValueError."""
    names = {spec.name for spec in LIMIT_FIELDS}
    unknown = sorted(set(asked) - names)
    if unknown:
        raise ValueError(f"Attempt asks for unknown limits: {', '.join(unknown)}; the limits are "
                         f"{', '.join(sorted(names))}")
    values, notes = {}, []
    for name, value in asked.items():
        ceiling = getattr(ceilings, name)
        if value > ceiling:
            notes.append(f"The generator asked for {name} {number(value)}; the round ran with its "
                         f"ceiling, {number(ceiling)}.")
        values[name] = min(value, ceiling)
    return base.replace(**values), notes


def unexpected_unsat_cores(result: RunResult, scripts: list[str], expected: Sequence[str | None],
                           chosen: RunOptions, sandbox: Sandbox) -> dict[int, list[tuple[int, str]]]:
    """The unsat cores of the candidates that were unsat where sat was expected: taken from the
    round when it asked for cores, else from a run of those scripts again with cores (not
    recorded; the round's record stays as it ran)."""
    surprised = [c for c in result.candidates
                 if c.verdict is Verdict.UNSAT and one_or_each(expected, c.index) == Verdict.SAT.value]
    cores = {c.index: list(c.unsat_core) for c in surprised if c.unsat_core}
    again = [c for c in surprised if not c.unsat_core and not chosen.cores]
    if not again:
        return cores
    # each distinct script once (K seeds of one script are one rerun)
    texts = list(dict.fromkeys(str(one_or_each(scripts, c.index)) for c in again))
    rerun = sandbox.run(texts if len(texts) > 1 else texts[0],
                        chosen.replace(cores=True, k=None, labels=None, expected=None, record_dir=None,
                                       repair=None, race=False, limits=result.limits))
    found = {text: list(core.unsat_core or ()) for text, core in zip(texts, rerun.candidates, strict=False)}
    for candidate in again:
        if found.get(str(one_or_each(scripts, candidate.index))):
            cores[candidate.index] = found[str(one_or_each(scripts, candidate.index))]
    return cores


def repair(generate: Callable[[Feedback | None], Scripts | Attempt], rounds: int = 3, k: int = 1,
           options: RunOptions | None = None, *, sandbox: Sandbox | None = None, until: Until | None = None,
           ceilings: Limits | None = None, **changes: object) -> RunResult:
    """Run ``generate(feedback)``'s scripts, feed back what failed, and repeat, at most ``rounds``
    times, until the round settles (``until``: "clean" by default, "expected" when ``expected=``
    is given, "any_model", or a callable of the result).  ``generate`` gets ``None`` first, then
    a ``Feedback`` on the round before (``feedback.text()`` for a prompt; untrusted output), and
    returns a script, a list of scripts, a dict name -> script, or an ``Attempt`` (scripts and
    the limits it asks for, each at most ``ceilings``: by default each limit's default or the
    caller's, whichever is higher).  ``k`` > 1 runs a single script K times with random seeds.
    ``options`` (a ``RunOptions``) and ``changes`` (its fields as keywords: ``limits``,
    ``expected``, ``labels``, ``record_dir`` to record every round, each with the loop's id and
    round ...) say how each round runs; ``sandbox`` runs on that ``Sandbox``.  Returns the last
    round's ``RunResult``, with every round's result in ``.rounds``."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a whole number >= 1, not {rounds!r}")
    chosen = RunOptions.of(options, **changes)
    expected = tuple(chosen.expected or ())
    rule: Until = until if until is not None else ("expected" if expected else "clean")
    if not callable(rule) and rule not in UNTIL_WORDS:
        raise ValueError(f"until must be one of {', '.join(UNTIL_WORDS)} or a callable, not {rule!r}")
    ceilings = ceilings or default_ceilings(chosen.limits)
    if sandbox is None:
        from ..host.sandbox import shared_sandbox

        sandbox = shared_sandbox(chosen.isolation)
    from ..host.records import new_run_id

    repair_id = new_run_id()  # each round's record carries it and the round's number
    history: list[RunResult] = []
    feedback: Feedback | None = None
    for round_number in range(1, rounds + 1):
        answer = generate(feedback)
        asked = answer.limits if isinstance(answer, Attempt) else {}
        scripts, labels = _as_scripts(answer.scripts if isinstance(answer, Attempt) else answer)
        limits, notes = asked_limits(chosen.limits, asked, ceilings)
        seeds = k if len(scripts) == 1 and k > 1 else None
        result = sandbox.run(scripts if len(scripts) > 1 else scripts[0],
                             chosen.replace(k=seeds, labels=labels or chosen.labels, limits=limits,
                                            repair=RepairRound(repair_id, round_number)))
        history.append(result)
        if result.interrupted or settled(result, rule, expected, chosen.verify):
            break
        cores = unexpected_unsat_cores(result, scripts, expected, chosen, sandbox) if expected else {}
        feedback = feedback_for(result, scripts, round_number, expected=expected, cores=cores,
                                ceilings=ceilings, notes=notes, verify=chosen.verify)
    last = history[-1]
    last.rounds = history
    return last

