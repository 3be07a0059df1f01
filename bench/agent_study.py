"""The agent study: LLM-style broken scripts (bench/agent_cases.py) through ``repair()`` and through
a loop of one's own that only reads the feedback, with a deterministic stand-in for the LLM; how
many converge after one and within three rounds of feedback, by each loop.

    python bench/agent_study.py [--plain] [--quick] [--json OUT]

The cases: the 16 small hand-written mistakes of the first study (wrong API names, a missing
import, a missing check, an enumeration without its blocking clause, a print flood ...); the
classes of issue 40, several scripts each (wrong API names, Int where Real was meant, Python's
and/or/if/not on z3 terms, bit-vector width mismatches, unbounded enumerations, huge output, a
hung quantifier and a fix that is right but slow, injection attempts); and 6 real models of
``../shared/corpus/z3py`` broken the way a model breaks them.

The stand-in for the LLM (``StandIn``) is deterministic and strict: each case lists its fixes in
order, and each fix has clues, regular expressions the round's feedback text must contain for the
stand-in to make that fix; without them it sends the same script again.  The clues are the
information a fix needs: the line the error is on, and, where the fix is not on that line alone,
what else it takes (the right name of a misspelt API, the unsat core's line, that the checks found
the same model each time, the limits a round may ask for).  A real LLM knows many API names
without the hint, so the numbers are a floor on what the feedback gives, not a forecast of an LLM.
The stand-in also reads the feedback as a naive LLM reads a prompt: text outside the untrusted
blocks (as the feedback's own preface delimits them) is an instruction, and a "SYSTEM:" line there
makes it stop fixing.

A case converges in a round when that round ran the case's fully fixed script and is settled as
``repair()`` settles a round (clean, and as expected where the case expects a verdict).
``repair()`` converges when it stops there; stopping on a broken script (the sandbox hid its
error) is not converging.  The feedback loop runs every round whatever happened, builds the same
feedback (``feedback_for``), and converges at the first round that ran the fixed script settled:
what the feedback alone allows.  The two counts should match: where they differ, ``repair()``
stopped too early or missed an answer.  Controls are cases no feedback can fix.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from agent_cases import Case, all_cases

from z3sandbox_kernel import Limits, Sandbox, repair
from z3sandbox_kernel.agents.repair import (
    Attempt,
    Feedback,
    asked_limits,
    default_ceilings,
    feedback_for,
    settled,
    unexpected_unsat_cores,
)
from z3sandbox_kernel.contracts.options import RunOptions

LIMITS = Limits(timeout_s=2, wall_s=3, cpu_s=2, output_max_mb=1)
ROUNDS = 4  # the broken script's run, then at most three rounds of feedback
QUICK = ("api_as_long", "int_for_real_half", "python_or", "width_add", "enumeration_unbounded",
         "output_model_dump", "injection_forged_preface", "corpus_age_changing_typo")


def outside_blocks(text: str) -> str:
    """What a naive reader takes for instructions: the text outside the untrusted blocks, as the
    feedback's preface (its first line) says they are delimited."""
    preface = text.split("\n", 1)[0]
    announced = re.findall(r'</untrusted-output[^>]*>', preface)
    closing = announced[0] if announced else "</untrusted-output>"
    outside, rest = [], text
    while True:
        start = rest.find("<untrusted-output")
        if start < 0:
            outside.append(rest)
            return "".join(outside)
        outside.append(rest[:start])
        end = rest.find(closing, start)
        if end < 0:
            return "".join(outside)
        rest = rest[end + len(closing):]


class StandIn:
    """The deterministic LLM: makes a case's next fix when the feedback holds its clues."""

    def __init__(self, case: Case, plain: bool) -> None:
        self.fixes = case.fixes if plain or not case.plain_only else []
        self.done = 0
        self.answer: str | Attempt = case.broken
        self.steered = False

    @property
    def fixed(self) -> bool:
        return self.done == len(self.fixes)

    def __call__(self, feedback: Feedback | None) -> str | Attempt:
        if feedback is None:
            return self.answer
        text = feedback.text()
        if "SYSTEM:" in outside_blocks(text):
            self.steered = True  # it followed the candidate's "instruction"
            return self.answer
        if self.done < len(self.fixes):
            clues, fixed = self.fixes[self.done]
            if all(re.search(clue, text) for clue in clues):
                self.answer, self.done = fixed, self.done + 1
        return self.answer


def expected_of(case: Case) -> tuple[str, ...]:
    return (case.expected,) if case.expected else ()


def through_repair(case: Case, options: dict[str, Any], sandbox: Sandbox) -> dict[str, object]:
    """``repair()`` on the case: the feedback rounds it converged after (0: the broken script's
    own run settled), or None."""
    stand_in = StandIn(case, bool(options.get("plain")))
    result = repair(stand_in, rounds=ROUNDS, limits=LIMITS, sandbox=sandbox, expected=case.expected,
                    **options)
    converged = stand_in.fixed and settled(result, expected=expected_of(case))
    first = result.rounds[0].candidates[0]
    return {"repair_rounds": len(result.rounds) - 1 if converged else None,
            "settled_broken": not stand_in.fixed and len(result.rounds) < ROUNDS,
            "steered": stand_in.steered, "first_verdict": first.verdict.value, "first_error": first.error,
            "last_verdict": result.verdict.value}


def through_feedback(case: Case, options: dict[str, Any], sandbox: Sandbox) -> int | None:
    """A loop of one's own that runs every round and only reads the feedback: the feedback rounds
    after which the fixed script first ran settled, or None."""
    stand_in = StandIn(case, bool(options.get("plain")))
    expected = expected_of(case)
    chosen = RunOptions.of(None, limits=LIMITS, expected=expected or None, **options)
    ceilings = default_ceilings(LIMITS)
    feedback = None
    for number in range(1, ROUNDS + 1):
        answer = stand_in(feedback)
        script = str(answer.scripts) if isinstance(answer, Attempt) else answer
        asked = answer.limits if isinstance(answer, Attempt) else {}
        limits, notes = asked_limits(LIMITS, asked, ceilings)
        result = sandbox.run(script, chosen.replace(limits=limits))
        if stand_in.fixed and settled(result, expected=expected):
            return number - 1
        cores = unexpected_unsat_cores(result, [script], expected, chosen, sandbox) if expected else {}
        feedback = feedback_for(result, [script], number, expected=expected, cores=cores,
                                ceilings=ceilings, notes=notes)
    return None


def study(plain: bool, quick: bool) -> list[dict[str, Any]]:
    options = {"plain": True} if plain else {}
    rows = []
    with Sandbox() as sandbox:
        for case in all_cases():
            if quick and case.name not in QUICK:
                continue
            row = {"case": case.name, "kind": case.kind, "origin": case.origin, "control": case.control,
                   **through_repair(case, options, sandbox),
                   "feedback_rounds": through_feedback(case, options, sandbox)}
            rows.append(row)
            print(row_text(row), flush=True)
    return rows


def row_text(row: dict[str, Any]) -> str:
    error = row["first_error"] or {}
    notes = ("  settled on the broken script" if row["settled_broken"] else "") + (
        "  steered by the candidate" if row["steered"] else "")
    return (f"{row['case']:30} {row['kind']:12} first {row['first_verdict']:14} line "
            f"{error.get('line')!s:>5}  repair() {row['repair_rounds']!s:>4}  feedback loop "
            f"{row['feedback_rounds']!s:>4}{notes}")


def counts(rows: list[dict[str, Any]], key: str) -> tuple[int, int]:
    """(converged after at most one round of feedback, within three)."""
    rounds = [row[key] for row in rows if row[key] is not None]
    return sum(1 for r in rounds if r <= 1), sum(1 for r in rounds if r <= 3)


def summary(rows: list[dict[str, Any]]) -> str:
    controls = sum(1 for row in rows if row["control"])
    (one, three), (own_one, own_three) = counts(rows, "repair_rounds"), counts(rows, "feedback_rounds")
    text = (f"{len(rows)} scripts ({controls} controls no feedback can fix): repair() converges on {one} "
            f"after one round of feedback, {three} within three; a loop that only reads the feedback on "
            f"{own_one} and {own_three}")
    differ = [row["case"] for row in rows if row["repair_rounds"] != row["feedback_rounds"]]
    return text + (f"\nrepair() and the feedback loop differ on: {', '.join(differ)}" if differ else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plain", action="store_true", help="run every script in plain mode")
    parser.add_argument("--quick", action="store_true", help=f"a smoke test: {len(QUICK)} cases, one a class")
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args()
    rows = study(args.plain, args.quick)
    print(f"\n{summary(rows)}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
