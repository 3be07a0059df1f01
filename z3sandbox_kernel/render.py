"""How results look: the ``application/vnd.z3sandbox.run+json`` document, text and HTML tables.

The JSON schema (``MIME_TYPE``, ``SCHEMA_VERSION`` 1) -- the labextension renders it::

    {
      "schema": "z3sandbox.run", "version": 1,
      "verdict": "sat",                       # RunResult.verdict (the vote)
      "counts": {"sat": 3, "timeout": 1},     # verdict -> number of candidates
      "language": "python",
      "limits": {"timeout_s": 5.0, ...},      # Limits.to_dict()
      "isolation": {"level": "kernel",
                    "layers": [{"name": ..., "active": ..., "detail": ...}]} | null,
      "notes": ["..."],                       # e.g. a restarted zygote
      "interrupted": false,
      "finished": true,                       # false while the run goes (a live document)
      "progress": {"done": 3, "total": 4},    # candidates with a verdict / all candidates
      "tie": null | {"sat": 1, "unsat": 1, "winner": "sat" | "unknown", "rule": "..."},
      "view": "run" | "candidate",            # "candidate": one candidate displayed alone (_z3[1])
      "columns": [{"key": "index", "title": "#"}, ...],   # TABLE_COLUMNS, in order (volatile too)
      "delta": true,                          # only in a live refresh: "candidates" holds only
                                              # the rows that changed since the previous one
      "control": "DISPLAY_ID",                # only live: what a Stop button's request names
      "candidates": [ {                       # CandidateDict without the volatile figures
          "index": 0, "verdict": "sat", "reason": "",
          "label": "NAME" | null,             # "# %% candidate NAME", the dict key, the file name
          "source_preview": "x = Int('x')" | null,   # the first meaningful source line
          "state": "queued" | "running",      # only while verdict is null (live documents)
          "shown": "proved" | "counterexample" | "sat · no payload" | <the verdict or state>,
          "core_answer": "(a1 a3)" | null,    # an SMT-LIB (get-unsat-core) answer in stdout
          "objectives": [{"term": "x + y", "direction": "maximize", "value": 13}],  # only when
                                              # a sat Optimize check had some
          "objective": "maximize x + y = 13",  # with objectives: as the row shows them
          "more_models": [{"model": {...}, "payload_hex": ..., "payload_error": ...,
                           "verified": true}],  # only with models=N and further models found
          "further_models": ["model 2: x=2"],  # with more_models: one line each, as shown
          "show_output": false,               # its row shows stdout inline (alone, or failed)
          # (a live document, "finished": false, has empty stdout and stderr: the final one has them)
          "model": {"x": 3, "r": {"fraction": [1, 2]}},
          "payload_hex": "4142" | null, "payload_error": null,
          "unsat_core": [[3, "s.add(x > 2)"]] | null,
          "stdout": "", "stderr": "", "stdout_truncated": false, "stderr_truncated": false,
          "error": null | {"type": "NameError", "line": 3, "message": "..."},   # when it failed
          "kill": null, "exit_code": 0, "signal": null, "verified": true } ]
    }

Additive changes keep version 1: a reader ignores fields it does not know, and label,
source_preview, state, finished, progress, tie, view, columns, error, shown, core_answer,
show_output, delta, control, objectives, objective, more_models and further_models were added
that way.

Volatile figures (wall_s, cpu_s, peak_rss_mb, elapsed_s) go in the output *metadata* under the same
MIME type as ``{"elapsed_s": ..., "timings": [{"index", "wall_s", "cpu_s", "peak_rss_mb"}]}``, so
that a saved notebook stays byte-identical from run to run and nbval can compare it.  A live
refresh adds ``{"index", "running_s"}`` for each running candidate (its elapsed time so far).

A candidate's ``verdict`` is null only in a partial document built while a run is still going
(never in a finished ``RunResult``).  Everything a candidate wrote (reason, model, stdout) is
untrusted: the text renderings replace control characters, and ``html.run_html`` escapes it all.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .limits import LIMIT_FIELDS, Limits
from .shown import (
    core_summary,
    further_models,
    inline_output,
    model_count,
    model_items,
    objective_summary,
    shown_verdict,
    shows_output,
    smt2_core_answer,
    state_label,
)

if TYPE_CHECKING:
    from .protocol import IsolationReport
    from .results import CandidateResult, RunResult

MIME_TYPE = "application/vnd.z3sandbox.run+json"
SCHEMA_VERSION = 1
VOLATILE_FIELDS = ("wall_s", "cpu_s", "peak_rss_mb")
# Fields of CandidateResult that the JSON document leaves out: volatile, per-machine or live-only.
_NOT_IN_JSON = (*VOLATILE_FIELDS, "isolation", "host", "state", "limits")  # limits: once, per run
_ONLY_IF_ANY = ("objectives", "more_models")
# The limits a one-line summary always shows; any other limit is shown when it is not the default.
HEADLINE_LIMITS = ("timeout_s", "wall_s", "cpu_s", "memory_mb")
_ABI = re.compile(r"ABI \d+")


# ------------------------------------------------------------------------------------------- JSON

def candidate_json(candidate: CandidateResult, live: bool = False, alone: bool = False) -> dict[str, Any]:
    """``live``: a document refreshed while the run goes leaves stdout and stderr out (empty), as
    K candidates' output, resent at every refresh, would be megabytes; the final one has them.
    ``alone``: the run's only candidate (its stdout is shown in its row)."""
    data = candidate.to_dict()
    for name in _NOT_IN_JSON:
        data.pop(name, None)
    for name in _ONLY_IF_ANY:  # optional fields (protocol.CandidateOptional): saved outputs of
        if not data[name]:     # runs without them stay as they were
            del data[name]
    if live:
        data["stdout"] = data["stderr"] = ""
    if candidate.verdict is None:
        data["state"] = candidate.state
    # What the row shows without a click (shown.py), decided here once for every renderer.
    data["shown"] = shown_verdict(candidate)
    data["core_answer"] = smt2_core_answer(candidate)
    if candidate.objectives:  # left out otherwise, as "objectives" is (results.py)
        data["objective"] = objective_summary(candidate)
    if candidate.more_models:  # models=N, as "more_models" is
        data["further_models"] = further_models(candidate)
    data["show_output"] = shows_output(candidate, alone) and not live
    return data


def progress(result: RunResult) -> dict[str, int]:
    done = sum(1 for c in result.candidates if c.verdict is not None)
    return {"done": done, "total": len(result.candidates)}


def finished(result: RunResult) -> bool:
    """A document is live while some candidate has no verdict yet."""
    return all(c.verdict is not None for c in result.candidates)


def run_json(result: RunResult, view: str = "run") -> dict[str, Any]:
    return {
        "schema": "z3sandbox.run",
        "version": SCHEMA_VERSION,
        "verdict": result.verdict.value,
        "counts": result.counts,
        "language": result.language,
        "limits": result.limits.to_dict(),
        "isolation": result.isolation,
        "notes": list(result.notes),
        "interrupted": result.interrupted,
        "finished": finished(result),
        "progress": progress(result),
        "tie": result.tie,
        "view": view,
        "columns": [{"key": column.key, "title": column.title} for column in TABLE_COLUMNS],
        "candidates": [candidate_json(c, live=not finished(result), alone=len(result.candidates) == 1)
                       for c in result.candidates],
    }


def run_metadata(result: RunResult) -> dict[str, Any]:
    return {
        "elapsed_s": round(result.elapsed_s, 4),
        "timings": [
            {"index": c.index, **{name: round(getattr(c, name), 4) for name in VOLATILE_FIELDS}}
            for c in result.candidates
        ],
    }


# ---------------------------------------------------------------------------------- short phrases

def printable(text: str) -> str:
    """``text`` with control and format characters shown as escapes, never raw to a terminal."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() or ch == " " else
        (" " if ch in "\t\n\r" else ch.encode("unicode_escape").decode("ascii"))
        for ch in text
    )


def shorten(text: str, width: int = 60) -> str:
    text = printable(" ".join(text.split()))
    return text if len(text) <= width else text[: width - 1] + "…"


def shorten_reason(text: str, width: int = 60) -> str:
    """Like ``shorten``, but a closing parenthesis ("(memory limit 512 MB)") survives the cut."""
    text = printable(" ".join(text.split()))
    tail = re.search(r" \([^()]{1,30}\)$", text)
    if len(text) <= width or tail is None:
        return shorten(text, width)
    return text[: width - len(tail.group(0)) - 1] + "…" + tail.group(0)


def reason_text(candidate: CandidateResult) -> str:
    """The reason, with the payload error (if any) after it."""
    if candidate.payload_error:
        return f"{candidate.reason} (payload: {candidate.payload_error})".strip()
    return candidate.reason


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
    if candidate.more_models:
        text = f"{model_count(candidate)} models: {text}"
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


def _figure(name: str, unit: str) -> Column:
    def text(c: CandidateResult) -> str:
        return f"{getattr(c, name):.2f} {unit}" if c.verdict is not None else ""

    title = {"wall_s": "wall", "cpu_s": "cpu", "peak_rss_mb": "memory"}[name]
    return Column(name, title, 9, lambda c: getattr(c, name), text, volatile=True)


TABLE_COLUMNS: tuple[Column, ...] = (
    Column("index", "#", 3, lambda c: c.index, lambda c: str(c.index)),
    Column("label", "candidate", 22, lambda c: c.label, lambda c: shorten(candidate_name(c), 22)),
    Column("verdict", "verdict", 16, lambda c: state_label(c), lambda c: shown_verdict(c)),
    Column("kill", "kill", 9, lambda c: c.kill, lambda c: printable(c.kill or "")),
    Column("model", "model / payload", 30, lambda c: c.payload if c.payload is not None else c.model,
           lambda c: model_preview(c, 30)),
    _figure("wall_s", "s"),
    _figure("cpu_s", "s"),
    _figure("peak_rss_mb", "MB"),
    Column("reason", "reason", 0, reason_text, lambda c: shorten_reason(reason_text(c))),
)
SAVED_COLUMNS = tuple(column for column in TABLE_COLUMNS if not column.volatile)


def counts_summary(result: RunResult) -> str:
    """``2 sat, 1 timeout`` (most common first), plus candidates not done yet."""
    counts = Counter(state_label(c) for c in result.candidates)
    return ", ".join(f"{n} {label}" for label, n in counts.most_common()) or "no candidates"


def number(value: float) -> str:
    """``5``, ``0.5``, ``1048576``: whole numbers in full (never ``1.04858e+06``)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


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


def groups_summary(result: RunResult, most: int = 4) -> str:
    """``identical models: x=2 (#0 #2 #5); x=3 (#1 #4)`` when some SAT candidates agree, else ''."""
    groups = result.model_groups()
    if not groups or len(groups[0]) < 2:
        return ""
    parts = [f"{model_preview(group[0], 30) or 'empty model'} "
             f"({' '.join(f'#{c.index}' for c in group[:8])}{' …' if len(group) > 8 else ''})"
             for group in groups[:most]]
    more = f"; {len(groups) - most} more" if len(groups) > most else ""
    return f"identical models: {'; '.join(parts)}{more}"


def run_summary(result: RunResult) -> str:
    """The one-line header: vote, counts, limits, isolation."""
    done = all(c.verdict is not None for c in result.candidates)
    vote = result.verdict.value if done else "pending"
    text = f"vote: {vote} ({counts_summary(result)})"
    if result.tie is not None:
        text += f" | {tie_summary(result)}"
    text += f" | limits: {limits_summary(result.limits)}"
    if result.isolation is not None:
        text += f" | isolation {isolation_summary(result.isolation)}"
    if result.interrupted:
        text += " | interrupted"
    return text


# ------------------------------------------------------------------------------------------- text

def _text_row(cells: list[str], columns: tuple[Column, ...], widths: list[int] | None = None) -> str:
    widths = widths or [column.width for column in columns]
    parts = [
        cell.rjust(width) if column.key == "index" else cell.ljust(width)
        for cell, column, width in zip(cells, columns, widths, strict=True)
    ]
    return "  ".join(parts).rstrip()


def text_header(columns: tuple[Column, ...] = SAVED_COLUMNS) -> str:
    return _text_row([column.title for column in columns], columns)


def candidate_text(candidate: CandidateResult, columns: tuple[Column, ...] = SAVED_COLUMNS) -> str:
    """One row of the fixed-width table (no volatile figures unless ``columns`` has them)."""
    return _text_row([column.text(candidate) for column in columns], columns)


def text_table(candidates: list[CandidateResult], columns: tuple[Column, ...] = SAVED_COLUMNS,
               *, alone: bool = False) -> list[str]:
    """Header, rule and rows, each column as wide as its widest cell (every cell is already cut to
    its column's width), each row followed by what it shows without a click: its unsat core, and
    its stdout when ``alone`` (the run's only candidate) or when it failed."""
    rows = [[column.text(c) for column in columns] for c in candidates]
    widths = [max([len(column.title), column.width if column.key == "index" else 0]
                  + [len(row[i]) for row in rows]) if column.width else 0
              for i, column in enumerate(columns)]
    header = _text_row([column.title for column in columns], columns, widths)
    lines = [header, "-" * len(header)]
    for candidate, row in zip(candidates, rows, strict=True):
        lines.append(_text_row(row, columns, widths))
        lines.extend(_under_row(candidate, alone))
    return lines


def _under_row(candidate: CandidateResult, alone: bool) -> list[str]:
    lines = []
    core = core_summary(candidate)
    if core:
        lines.append(f"{'':5}core: {core}")
    if objective_summary(candidate):
        lines.append(f"{'':5}objective: {objective_summary(candidate)}")
    lines += [f"{'':5}{shorten(line, 100)}" for line in further_models(candidate)]
    if shows_output(candidate, alone):
        text, more = inline_output(candidate)
        body = text.splitlines() + ([f"… ({more} more lines)"] if more else [])
        lines += [f"{'':5}{'stdout:' if n == 0 else '':8}{line}" for n, line in enumerate(body)]
    return lines


TEXT_HEADER = text_header()


def tie_summary(result: RunResult) -> str:
    tie = result.tie
    if tie is None:
        return ""
    return f"tie {tie['sat']} sat / {tie['unsat']} unsat -> {tie['winner']}: {tie['rule']}"


def progress_summary(result: RunResult) -> str:
    """``3/10 done, 1.2 s`` while a run goes."""
    step = progress(result)
    return f"{step['done']}/{step['total']} done, {result.elapsed_s:.1f} s"


def core_text(candidate: CandidateResult) -> str:
    """``line 3: s.add(x > 2); line 4: ...``: an unsat core as the script's lines."""
    return "; ".join(f"line {line}: {printable(text)}" for line, text in candidate.unsat_core or ())


def run_text(result: RunResult, cores: bool = True) -> str:
    """A fixed-width table with no volatile figures.  Unsat cores are under their rows (``cores``
    is kept for callers; a core is always shown now), and so is the stdout ``text_table`` shows."""
    vote = result.verdict.value if finished(result) else "pending"
    if len(result.candidates) == 1:  # one candidate: its verdict, not a vote
        lines = [f"RunResult: {shown_verdict(result.candidates[0])}"]
    else:
        lines = [f"RunResult: {vote} ({counts_summary(result)})"]
    if result.tie is not None:
        lines[0] += f" -- {tie_summary(result)}"
    if result.interrupted:
        lines[0] += " -- interrupted"
    if groups_summary(result):
        lines.append(groups_summary(result))
    lines += text_table(result.candidates, alone=len(result.candidates) == 1)
    lines.extend(f"note: {printable(note)}" for note in result.notes)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- MIME bundles

def run_mimebundle(result: RunResult) -> tuple[dict[str, Any], dict[str, Any]]:
    """The display of a run, live (some verdicts missing) or final: the same table either way."""
    from .html import run_html  # the HTML table lives with the rest of the markup

    text = run_text(result)
    if not finished(result):
        text = f"{text}\nprogress: {progress_summary(result)} (incomplete)"
    data = {"text/plain": text, "text/html": run_html(result), MIME_TYPE: run_json(result)}
    return data, {MIME_TYPE: run_metadata(result)}


def candidate_alone_text(candidate: CandidateResult) -> str:
    """A candidate shown alone (``_z3[1]``): what it is, what it found and why."""
    name = f" {candidate.label!r}" if candidate.label else ""
    verified = ""
    if candidate.verdict is not None and candidate.verdict.value == "sat" and candidate.verified is not None:
        verified = " (model verified)" if candidate.verified else " (model failed verification)"
    lines = [f"candidate {candidate.index}{name}: {shown_verdict(candidate)}{verified}"]
    if candidate.source_preview:
        lines.append(f"  source:  {printable(candidate.source_preview)}")
    if candidate.payload is not None:
        lines.append(f"  payload: {shorten(candidate.payload.hex(' '), 72)} ({len(candidate.payload)} bytes)")
    if candidate.model:
        lines.append(f"  model:   {shorten(', '.join(f'{k}={v}' for k, v in model_items(candidate)), 72)}")
    lines += [f"  {shorten(line, 79)}" for line in further_models(candidate)]
    if core_summary(candidate):
        lines.append(f"  core:    {core_summary(candidate)}")
    if objective_summary(candidate):
        lines.append(f"  optimum: {objective_summary(candidate)}")
    reason = reason_text(candidate)
    if reason:
        lines.append(f"  reason:  {printable(' '.join(reason.split()))}")
    if candidate.kill:
        lines.append(f"  killed:  {printable(candidate.kill)}")
    if shows_output(candidate, alone=True):
        text, more = inline_output(candidate)
        body = text.splitlines() + ([f"… ({more} more lines)"] if more else [])
        lines += [f"  {'stdout:' if n == 0 else '':9}{line}" for n, line in enumerate(body)]
    if candidate.limits is not None:
        lines.append(f"  limits:  {limits_summary(candidate.limits)}")
    return "\n".join(lines)


def candidate_mimebundle(candidate: CandidateResult) -> tuple[dict[str, Any], dict[str, Any]]:
    """One candidate: its own text and HTML; the document is its run's, with ``view: candidate``."""
    from .html import candidate_html
    from .results import RunResult

    alone = RunResult(candidates=[candidate], limits=candidate.limits or Limits())
    data = {
        "text/plain": candidate_alone_text(candidate),
        "text/html": candidate_html(candidate),
        MIME_TYPE: run_json(alone, view="candidate"),
    }
    return data, {MIME_TYPE: run_metadata(alone)}
