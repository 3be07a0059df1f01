"""The vote over a run's candidates (``RunResult.verdict``, ``tie``, ``best``), and prove()'s words.

The majority of the decisive answers (sat, unsat) that count wins.  Not counted: a disputed answer
(a checker contradicts it: ``CandidateResult.disputed``), and a sat whose model verification was
asked for and could not decide.  On a tie, a confirmed answer (``confirmed_by``: a solver confirmed
it in a process that ran no user code) beats an unconfirmed one; when both sides are confirmed, a
verified model is a certificate, so sat wins; when neither is, the tie is unknown.  With no answer
that counts, the vote is the most common other verdict, earliest first.

A run whose decisive candidates all called prove() votes in prove()'s words: "proved" (its solver
said unsat), "counterexample" (sat), "disputed" (every answer was contradicted by a checker).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Generic, Literal, Protocol, TypeVar

from ..protocol import UNVERIFIED_REASON
from ..protocol.candidate import Model
from ..protocol.document import DocumentTie
from ..protocol.verdicts import Verdict


class Ballot(Protocol):
    """What the vote reads of a candidate (``CandidateResult`` is one): the vote needs no more,
    so this module and results.py do not import each other."""

    @property
    def verdict(self) -> Verdict | None: ...

    @property
    def reason(self) -> str: ...

    @property
    def stdout(self) -> str: ...

    @property
    def verified(self) -> bool | None: ...

    @property
    def confirmed_by(self) -> tuple[str, ...]: ...

    @property
    def disputed(self) -> str | None: ...


Cast = TypeVar("Cast", bound=Ballot)  # a candidate type, kept through voting() and best()

# What prove() prints for each answer of its solver (it checks the claim's negation).
PROVE_WORDS = {"unsat": "proved", "sat": "counterexample"}
DISPUTED = "disputed"


def counts(candidate: Ballot) -> bool:
    """Whether its answer counts in the vote: decisive, not disputed, and (sat) not a model whose
    verification was asked for and could not decide."""
    if candidate.verdict not in (Verdict.SAT, Verdict.UNSAT) or candidate.disputed:
        return False
    return not (candidate.verdict is Verdict.SAT and candidate.verified is None
                and candidate.reason.startswith(UNVERIFIED_REASON))


def confirmed(candidate: Ballot) -> bool:
    """A solver confirmed its answer in a process that ran no user code (a verified model is, in
    a document saved before ``confirmed_by`` existed)."""
    return bool(candidate.confirmed_by) or (candidate.verdict is Verdict.SAT and candidate.verified is True)


def voting(candidates: Sequence[Cast], verdict: Verdict) -> list[Cast]:
    return [c for c in candidates if c.verdict is verdict and counts(c)]


def tie(candidates: Sequence[Ballot]) -> DocumentTie | None:
    """When as many counted answers said sat as unsat: the counts, the winner and the rule used
    (in prove()'s words too, for a run of prove() calls: ``words``)."""
    sat, unsat = voting(candidates, Verdict.SAT), voting(candidates, Verdict.UNSAT)
    if not sat or len(sat) != len(unsat):
        return None
    return tie_of(len(sat), len(unsat), any(map(confirmed, sat)), any(map(confirmed, unsat)),
                  proves(candidates))


def tie_of(sat: int, unsat: int, sat_confirmed: bool, unsat_confirmed: bool,
           in_prove_words: bool) -> DocumentTie | None:
    """``tie`` from the counted answers' numbers, whether some answer of each side is confirmed,
    and ``proves``: what a live table keeps as its run goes (presentation/tally.py)."""
    if not sat or sat != unsat:
        return None
    winner: Literal["sat", "unsat", "unknown"]
    say = PROVE_WORDS if in_prove_words else {"sat": "sat", "unsat": "unsat"}
    if sat_confirmed and unsat_confirmed:
        winner = "sat"
        rule = f"both answers are confirmed; a verified model is a certificate, so {say['sat']} wins"
    elif sat_confirmed or unsat_confirmed:
        winner = "sat" if sat_confirmed else "unsat"
        rule = f"a confirmed answer beats an unconfirmed one, so {say[winner]} wins"
    else:
        winner, rule = "unknown", "neither answer is confirmed, so the tie is unknown"
    found: DocumentTie = {"sat": sat, "unsat": unsat, "winner": winner, "rule": rule}
    if in_prove_words:
        found["words"] = dict(PROVE_WORDS)
    return found


def verdict(candidates: Sequence[Ballot]) -> Verdict:
    if not candidates:
        return Verdict.UNKNOWN
    sat, unsat = len(voting(candidates, Verdict.SAT)), len(voting(candidates, Verdict.UNSAT))
    if sat or unsat:
        return verdict_of(sat, unsat, tie(candidates) if sat == unsat else None, {})
    return verdict_of(0, 0, None, Counter(c.verdict for c in candidates
                                          if c.verdict is not None and not c.verdict.decisive))


def verdict_of(sat: int, unsat: int, decided_tie: DocumentTie | None,
               others: Mapping[Verdict, int]) -> Verdict:
    """The vote from the counted answers' numbers, their ``tie`` and the other verdicts' numbers
    (earliest first: the first of the most common wins), as ``verdict`` and a live table
    (presentation/tally.py) count them."""
    if sat or unsat:
        if sat != unsat:
            return Verdict.SAT if sat > unsat else Verdict.UNSAT
        return Verdict(decided_tie["winner"] if decided_tie else "unknown")
    if not others:
        return Verdict.UNKNOWN
    most = max(others.values())
    return next(v for v in others if others[v] == most)


def best(candidates: Sequence[Cast]) -> Cast | None:
    """The sat candidate whose model and payload stand for the run: the first verified one."""
    sat = voting(candidates, Verdict.SAT)
    chosen = [c for c in sat if c.verified] or sat
    return chosen[0] if chosen else None


def prove_word(candidate: Ballot) -> str | None:
    """"proved" / "counterexample" for a prove() call (its stdout says so), "disputed" for one a
    checker contradicts, else None."""
    if candidate.verdict is None or candidate.verdict.value not in PROVE_WORDS:
        return None
    word = PROVE_WORDS[candidate.verdict.value]
    if word not in (line.strip() for line in (candidate.stdout or "").splitlines()):
        return None
    return DISPUTED if candidate.disputed else word


def proves(candidates: Sequence[Ballot]) -> bool:
    """Every decisive candidate (there is one at least) called prove()."""
    decisive = [c for c in candidates if c.verdict is not None and c.verdict.decisive]
    return bool(decisive) and all(prove_word(c) is not None for c in decisive)


def vote_word(candidates: Sequence[Ballot]) -> str:
    """The vote as it is said: prove()'s words for a run of prove() calls, else the verdict."""
    return vote_word_of(verdict(candidates), proves(candidates), any(counts(c) for c in candidates))


def vote_word_of(decided: Verdict, in_prove_words: bool, any_counted: bool) -> str:
    """``vote_word`` from the vote, ``proves`` and whether any answer counts."""
    if not in_prove_words:
        return decided.value
    if decided.value in PROVE_WORDS:
        return PROVE_WORDS[decided.value]
    if not any_counted:
        return DISPUTED
    return decided.value


class Found(Ballot, Protocol):
    """What ``RunVote`` reads of a candidate besides its ballot: its model (as it came) and payload."""

    @property
    def encoded_model(self) -> Model | None: ...

    @property
    def payload(self) -> bytes | None: ...


Candidate = TypeVar("Candidate", bound=Found)


class RunVote(Generic[Candidate]):
    """``RunResult``'s vote over its ``candidates`` (this module's rules), and its model groups."""

    candidates: list[Candidate]

    @property
    def counts(self) -> dict[str, int]:
        return dict(Counter(c.verdict.value for c in self.candidates if c.verdict is not None))

    @property
    def tie(self) -> DocumentTie | None:
        """When as many counted candidates said sat as unsat: the counts, the winner and the rule."""
        return tie(self.candidates)

    @property
    def verdict(self) -> Verdict:
        return verdict(self.candidates)

    @property
    def vote(self) -> str:
        """The vote as it is said: prove()'s words for a run of prove() calls, else the verdict's."""
        return vote_word(self.candidates)

    @property
    def best(self) -> Candidate | None:
        """The SAT candidate whose model and payload stand for the run: the first verified one."""
        return best(self.candidates)

    def model_groups(self) -> list[list[Candidate]]:
        """SAT candidates grouped by identical model and payload, the biggest group first (LLM
        candidates often agree: five answers may be one model)."""
        groups: dict[str, list[Candidate]] = {}
        for candidate in (c for c in self.candidates if c.verdict is Verdict.SAT):
            groups.setdefault(model_group_key(candidate), []).append(candidate)
        return sorted(groups.values(), key=len, reverse=True)


def model_group_key(candidate: Found) -> str:
    """What a ``model_groups`` group shares: its model as it came and its payload (json's C
    encoder: fast; presentation/tally.py keeps it)."""
    payload = candidate.payload.hex() if candidate.payload is not None else None
    return json.dumps([candidate.encoded_model, payload], sort_keys=True)
