"""Short phrases of results, one line each, and the table's columns: shared by the text table
(textview.py), the HTML table (html.py), the run document (render.py) and the terminal's progress.

Everything a candidate wrote is untrusted: ``printable.printable`` escapes control characters here, and
``html.py`` escapes the rest.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..contracts.limits import LIMIT_FIELDS, Limits, number
from ..contracts.vote import PROVE_WORDS, proves
from ..protocol.messages import KERNEL_LAYERS, NAMESPACE_LAYERS
from .printable import printable
from .reasons import fit_reason, reason_text
from .row_details import model_count, model_items, shown_verdict, state_label

if TYPE_CHECKING:
    from ..contracts.results import CandidateResult, RunResult
    from ..protocol import IsolationReport
    from ..protocol.document import DocumentProgress, DocumentTie

# The limits a one-line summary always shows; any other limit is shown when it is not the default.
HEADLINE_LIMITS = ("timeout_s", "wall_s", "cpu_s", "memory_mb")
# The reason's room in a table's row, at least: a longer one loses its source excerpt first, never
# its message (reasons.fit_reason).
REASON_WIDTH = 60
_ABI = re.compile(r"ABI \d+")


def shorten(text: str, width: int = 60) -> str:
    text = printable(" ".join(text.split()))
    return text if len(text) <= width else text[: width - 1] + "…"


def shorten_tail(text: str, width: int = 60) -> str:
    """Like ``shorten``, but a closing parenthesis ("… (5120 bytes)") survives the cut."""
    text = printable(" ".join(text.split()))
    tail_match = re.search(r" \([^()]{1,30}\)$", text)
    if len(text) <= width or tail_match is None:
        return shorten(text, width)
    return text[: width - len(tail_match.group(0)) - 1] + "…" + tail_match.group(0)


def source_preview(script: str, width: int = 80) -> str | None:
    """The first line of a script that is neither blank nor a comment, for the table."""
    for line in script.splitlines():
        if line.strip() and not line.lstrip().startswith(("#", ";")):
            return shorten(line.strip(), width)
    return None


def candidate_name(candidate: CandidateResult) -> str:
    """What the table calls a candidate: its label, else its source preview."""
    return printable(candidate.label or candidate.source_preview or "")


def model_text(candidate: CandidateResult, max_bytes: int = 4096) -> str:
    """The payload in hex (its first ``max_bytes``) when there is one, else the whole model as
    ``name=value`` pairs."""
    payload = candidate.payload
    if payload is not None:
        more = f" … ({len(payload)} bytes)" if len(payload) > max_bytes else ""
        return payload[:max_bytes].hex(" ") + more
    text = ", ".join(f"{k}={v}" for k, v in model_items(candidate))
    return text + (f", … {candidate.model_omitted} more entries not kept" if candidate.model_omitted else "")


def model_preview(candidate: CandidateResult, width: int = 40) -> str:
    """``model_text`` shortened to one cell, after the count of models when there are several."""
    text = model_text(candidate, max_bytes=width)
    count = model_count(candidate)
    if count > 1 or (count and not text):  # models=N, or models the script read at its checks
        text = f"{count} models: {text}" if text else f"{count} model{'s' * (count > 1)} at its checks"
    return shorten(text, width) if text else ""


@dataclass(frozen=True)
class Column:
    """One column of the one table: the text table, the HTML table, the labextension's table (by
    ``key`` and ``title`` in the run document) and ``to_dataframe()`` all use ``TABLE_COLUMNS``.
    Volatile columns (measured figures) are shown live and in the labextension (from the output
    metadata) and the data frame, never in a saved text or HTML table."""

    key: str
    title: str
    width: int  # in the text table; 0 for the last, unpadded column
    value: Callable[[CandidateResult], Any]  # the raw value (data frame)
    text: Callable[[CandidateResult], str]  # the shown text (escaped later by the HTML renderer)
    volatile: bool = False
    unit: str = ""  # a measured figure's unit ("s", "MB"), for renderers that format the number


def _figure(name: str, unit: str) -> Column:
    def text(c: CandidateResult) -> str:
        if c.verdict is None:
            return ""
        value = getattr(c, name)
        return "—" if state_label(c) == "cancelled" and not value else f"{value:.2f} {unit}"  # never ran

    title = {"wall_s": "wall", "cpu_s": "cpu", "peak_rss_mb": "memory"}[name]
    return Column(name, title, 9, lambda c: getattr(c, name), text, volatile=True, unit=unit)


TABLE_COLUMNS: tuple[Column, ...] = (
    Column("index", "#", 3, lambda c: c.index, lambda c: str(c.index)),
    Column("label", "candidate", 22, lambda c: c.label, lambda c: shorten(candidate_name(c), 22)),
    Column("verdict", "verdict", 16, lambda c: state_label(c), lambda c: shown_verdict(c)),
    # A kill its reason already says ("interrupted", "cancelled", "... (race)") is said once.
    Column("kill", "kill", 9, lambda c: c.kill, lambda c: kill_text(c)),
    Column("model", "model / payload", 30, lambda c: c.payload if c.payload is not None else c.model,
           lambda c: model_preview(c, 30)),
    _figure("wall_s", "s"),
    _figure("cpu_s", "s"),
    _figure("peak_rss_mb", "MB"),
    Column("reason", "reason", 0, reason_text, lambda c: fit_reason(reason_text(c), REASON_WIDTH)),
)
SAVED_COLUMNS = tuple(column for column in TABLE_COLUMNS if not column.volatile)


def answer_words(result: RunResult) -> dict[str, str]:
    """How a run says its answers: prove()'s words ("unsat": "proved", "sat": "counterexample")
    for a run of prove() calls, else none (each verdict is its own word)."""
    return dict(PROVE_WORDS) if proves(result.candidates) else {}


def kill_text(candidate: CandidateResult) -> str:
    """The kill column's text: the kill, unless a cancelled row's reason already says it
    ("interrupted", "cancelled", "... (race)"), which a Stop button's "stopped (Stop button)"
    does not: that row says ``cancel``."""
    kill = printable(candidate.kill or "")
    return "" if state_label(candidate) == "cancelled" and kill in candidate.reason else kill


def counts_summary(result: RunResult) -> str:
    """``2 sat, 1 timeout`` (most common first), plus candidates not done yet; in prove()'s
    words for a run of prove() calls (``1 proved, 1 counterexample``)."""
    words = answer_words(result)
    return counts_phrase(Counter(words.get(state_label(c), state_label(c)) for c in result.candidates
                                 ).most_common())


def counts_phrase(most_common: Iterable[tuple[str, int]]) -> str:
    """``counts_summary`` of each label's number, most common first (ties: the earliest row's)."""
    return ", ".join(f"{n} {label}" for label, n in most_common) or "no candidates"


def limits_summary(limits: Limits) -> str:
    """``timeout 5 s, wall 10 s, cpu 8 s, memory 512 MB``, then any limit not at its default."""
    parts = []
    for spec in LIMIT_FIELDS:
        value = getattr(limits, spec.name)
        if spec.name in HEADLINE_LIMITS or value != spec.default:
            unit = spec.metadata["unit"]
            label = spec.metadata["flag"].lstrip("-")
            parts.append(f"{label} {number(value)}{(' ' + unit) if unit else ''}")
    return ", ".join(parts)


def limits_shown(limits: Limits) -> list[list[str]]:
    """Every limit as ``[name, value with its unit]`` (``["memory", "512 MB"]``), in the model's
    order: the labextension's limits table shows these, it does not guess units."""
    shown = []
    for spec in LIMIT_FIELDS:
        unit = spec.metadata["unit"]
        value = number(getattr(limits, spec.name))
        shown.append([spec.metadata["flag"].lstrip("-"), f"{value} {unit}" if unit else value])
    return shown


def isolation_summary(report: IsolationReport | None) -> str:
    """``kernel: userns netns pidns landlock(ABI 7) seccomp``: the level, the active layers (with
    an ABI version where the layer has one), then ``missing: ...`` for layers not applied.  The
    layers' full details stay in the report."""
    if not report:
        return "unknown"
    active, missing = [], []
    for layer in report.get("layers", []):
        name = str(layer.get("name", "?"))
        if layer.get("active"):
            version = _ABI.match(str(layer.get("detail") or ""))
            active.append(f"{name}({version.group(0)})" if version else name)
        else:
            missing.append(name)
    text = f"{report.get('level', '?')}: {' '.join(active) or 'no layers'}"
    return printable(text + (f"; missing: {' '.join(missing)}" if missing else ""))


def isolation_shortfall(report: IsolationReport | None) -> str:
    """The isolation summary when a layer the best isolation has is missing (a process-level
    run, a layer that failed), else '': a caption under every output need not list the layers
    that are all there (the kernel's status bar and the settings still do)."""
    if report is None:
        return ""
    layers = report.get("layers", [])
    active = [layer for layer in layers if layer.get("active")]
    names = {str(layer.get("name")) for layer in active}
    absent = [name for name in (*NAMESPACE_LAYERS, *KERNEL_LAYERS) if name not in names]
    absent += [str(layer.get("name")) for layer in layers
               if not layer.get("active") and str(layer.get("name")) not in absent]
    if not absent:
        return ""
    return f"{isolation_summary({**report, 'layers': active})}; missing: {printable(' '.join(absent))}"


def isolation_layers(report: IsolationReport | None) -> list[str]:
    """Each layer of the report in one line, as the settings list them: ``landlock: active (ABI
    7)``, ``netns: missing (its error, else its detail)``; none without a report."""
    lines = []
    for layer in report.get("layers", []) if report else ():
        active = bool(layer.get("active"))
        extra = layer.get("detail") if active else (layer.get("error") or layer.get("detail"))
        status = "active" if active else "missing"
        lines.append(printable(f"{layer.get('name', '?')}: {status}{f' ({extra})' if extra else ''}"))
    return lines


# A caption names the biggest groups of identical models, and the first rows of each.
SHOWN_GROUPS, SHOWN_MEMBERS = 4, 8


def groups_summary(result: RunResult) -> str:
    """``identical models: x=2 (#0 #2 #5); x=3 (#1 #4)`` when some SAT candidates agree, else ''."""
    groups = result.model_groups()
    return groups_phrase([(group[0], [c.index for c in group[:SHOWN_MEMBERS + 1]], len(group))
                          for group in groups[:SHOWN_GROUPS]], len(groups))


def groups_phrase(biggest: Sequence[tuple[CandidateResult, Sequence[int], int]], count: int) -> str:
    """``groups_summary`` of the ``SHOWN_GROUPS`` biggest groups (earliest first among equals),
    each as (its first candidate, its first rows' indices, its size), of ``count`` groups."""
    if not biggest or biggest[0][2] < 2:
        return ""
    parts = [f"{model_preview(first, 30) or 'empty model'} "
             f"({' '.join(f'#{index}' for index in rows[:SHOWN_MEMBERS])}{' …' * (size > SHOWN_MEMBERS)})"
             for first, rows, size in biggest]
    more = f"; {count - SHOWN_GROUPS} more" if count > SHOWN_GROUPS else ""
    return f"identical models: {'; '.join(parts)}{more}"


def tie_summary(tie: DocumentTie | None) -> str:
    """``1 sat / 1 unsat → sat: RULE``; the caller says it is a tie (a badge, or "tie ")."""
    if tie is None:
        return ""
    words = tie.get("words") or {}
    sat, unsat = words.get("sat", "sat"), words.get("unsat", "unsat")
    winner = words.get(tie["winner"], tie["winner"])
    return f"{tie['sat']} {sat} / {tie['unsat']} {unsat} → {winner}: {tie['rule']}"


def progress(result: RunResult) -> DocumentProgress:
    done = sum(1 for c in result.candidates if c.verdict is not None)
    return {"done": done, "total": len(result.candidates)}


def finished(result: RunResult) -> bool:
    """A document is live while some candidate has no verdict yet."""
    return all(c.verdict is not None for c in result.candidates)


def progress_summary(step: DocumentProgress, elapsed_s: float) -> str:
    """``3/10 done, 1.2 s`` while a run goes."""
    return f"{step['done']}/{step['total']} done, {elapsed_s:.1f} s"
