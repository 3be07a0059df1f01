"""The text block of ``run_candidates``'s result: what an agent whose client shows only text reads.

A short trusted summary (the run, the vote, and per distinct outcome its candidates, verdict, kill,
verification and error line: the sandbox's own words), then one untrusted block, fenced as the
repair loop's feedback fences its blocks, holding per outcome what its candidates shaped (labels,
model, error message, checks, the ends of stdout and stderr), shown as the feedback shows it
(agents/feedback.py).  Not the JSON again: the structured content holds every field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..contracts.results import RunResult
from . import untrusted
from .feedback import UNTRUSTED, candidate_feedback, one_or_each

GROUP_BYTES = 900  # of each outcome's part of the untrusted block
GROUP_STDOUT_ROOM = 200  # of that, kept for stdout's end when there is stderr too
LABELS_SHOWN = 20


def indexes_text(indexes: Sequence[int]) -> str:
    """``#0-15``, ``#1, #3-4``: candidate numbers as runs."""
    runs: list[list[int]] = []
    for index in sorted(indexes):
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return ", ".join(f"#{run[0]}" if len(run) == 1 else f"#{run[0]}-{run[-1]}" for run in runs)


def _trusted_line(entry: Mapping[str, object]) -> str:
    parts = [str(entry.get("verdict", "running"))]
    if entry.get("kill"):
        parts.append(f"stopped by {entry['kill']}")
    if entry.get("verified") is True:
        parts.append("model verified")
    elif entry.get("verified") is False:
        parts.append("model failed verification")
    confirmed = entry.get("confirmed_by")
    if confirmed:
        parts.append(f"confirmed by {', '.join(map(str, confirmed))}")  # type: ignore[call-overload]
    elif entry.get("unchecked"):
        parts.append("not all checked (see below)")
    if entry.get("disputed"):
        parts.append("disputed (see below)")
    error = entry.get("error")
    if isinstance(error, Mapping) and error.get("line"):
        parts.append(f"error on line {error['line']}")
    return f"{indexes_text(entry['indexes'])}: {', '.join(parts)}"  # type: ignore[arg-type]


def output_text(result: RunResult, output: Mapping[str, object], scripts: Sequence[str],
                expected: Sequence[str | None] = (), verify: bool = True) -> str:
    """The summary, then the untrusted block, for ``output`` (mcp_output.run_output of
    ``result``; ``scripts`` as sent, for the line an error names)."""
    counts = ", ".join(f"{count} {verdict}" for verdict, count in result.counts.items())
    head = [f"Run {result.run_id}: the vote is {output.get('vote') or result.verdict.value} ({counts}), "
            f"{result.elapsed_s:.2f} s." + (f" Record: {output['record']}." if output.get("record") else "")]
    tie = result.tie
    if tie:
        head.append(f"Tie: {tie['rule']}.")
    head += [f"Note: {note}" for note in result.notes]
    entries: Sequence[Mapping[str, object]] = output.get("candidates", [])  # type: ignore[assignment]
    head += [_trusted_line(entry) for entry in entries]
    nonce = untrusted.new_nonce()
    by_index = {candidate.index: candidate for candidate in result.candidates}
    parts = []
    for entry in entries:
        indexes: Sequence[int] = entry["indexes"]  # type: ignore[assignment]
        candidate = by_index[indexes[0]]
        said = candidate_feedback(candidate, one_or_each(scripts, candidate.index), nonce,
                                  limits=result.limits, expected=one_or_each(expected, candidate.index),
                                  verify=verify)
        labels: Sequence[str] = entry.get("labels", [])  # type: ignore[assignment]
        named = ", ".join(labels[:LABELS_SHOWN]) + (f", … ({len(labels) - LABELS_SHOWN} more)"
                                                    if len(labels) > LABELS_SHOWN else "")
        title = indexes_text(indexes) + (f" ({named})" if labels else "")
        parts.append(said.body(GROUP_BYTES, title, GROUP_STDOUT_ROOM))
    preface = UNTRUSTED.format(open=untrusted.opening(nonce), close=untrusted.closing(nonce))
    return "\n".join([*head, preface, untrusted.block("\n".join(parts), nonce)])
