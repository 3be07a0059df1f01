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
      "candidates": [ {                       # CandidateDict without the volatile figures
          "index": 0, "verdict": "sat", "reason": "",
          "label": "NAME" | null,             # "# %% candidate NAME", the dict key, the file name
          "source_preview": "x = Int('x')" | null,   # the first meaningful source line
          "state": "queued" | "running",      # only while verdict is null (live documents)
          "model": {"x": 3, "r": {"fraction": [1, 2]}},
          "payload_hex": "4142" | null, "payload_error": null,
          "unsat_core": [[3, "s.add(x > 2)"]] | null,
          "stdout": "", "stderr": "", "stdout_truncated": false, "stderr_truncated": false,
          "kill": null, "exit_code": 0, "signal": null, "verified": true } ]
    }

Additive changes keep version 1: a reader ignores fields it does not know, and label,
source_preview, state, finished, progress, tie, view and columns were added that way.

Volatile figures (wall_s, cpu_s, peak_rss_mb, elapsed_s) go in the output *metadata* under the same
MIME type as ``{"elapsed_s": ..., "timings": [{"index", "wall_s", "cpu_s", "peak_rss_mb"}]}``, so
that a saved notebook stays byte-identical from run to run and nbval can compare it.

A candidate's ``verdict`` is null only in a partial document built while a run is still going
(never in a finished ``RunResult``).  Everything a candidate wrote (reason, model, stdout) is
untrusted: the text renderings replace control characters, and ``html.run_html`` escapes it all.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from .limits import LIMIT_FIELDS, Limits

if TYPE_CHECKING:
    from .protocol import IsolationReport
    from .results import CandidateResult, RunResult

MIME_TYPE = "application/vnd.z3sandbox.run+json"
SCHEMA_VERSION = 1
VOLATILE_FIELDS = ("wall_s", "cpu_s", "peak_rss_mb")
# Fields of CandidateResult that the JSON document leaves out: volatile, per-machine or live-only.
_NOT_IN_JSON = (*VOLATILE_FIELDS, "isolation", "host", "state", "limits")  # limits: once, per run
# The limits a one-line summary always shows; any other limit is shown when it is not the default.
HEADLINE_LIMITS = ("timeout_s", "wall_s", "cpu_s", "memory_mb")
_ABI = re.compile(r"ABI \d+")


# ------------------------------------------------------------------------------------------- JSON

def candidate_json(candidate: CandidateResult) -> dict[str, Any]:
    data = candidate.to_dict()
    for name in _NOT_IN_JSON:
        data.pop(name, None)
    return data


def run_json(result: RunResult) -> dict[str, Any]:
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
        "candidates": [candidate_json(c) for c in result.candidates],
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


def model_preview(candidate: CandidateResult, width: int = 40) -> str:
    """The payload in hex when there is one, else ``name=value`` pairs of the model."""
    if candidate.payload is not None:
        text = candidate.payload.hex(" ")
    elif candidate.model:
        text = ", ".join(f"{k}={v}" for k, v in candidate.model.items())
    else:
        text = ""
    return shorten(text, width) if text else ""


def state_label(candidate: CandidateResult) -> str:
    """The verdict once a candidate is done, else its state ("queued", "running")."""
    if candidate.verdict is not None:
        return candidate.verdict.value
    return str(getattr(candidate, "state", "queued"))


def counts_summary(result: RunResult) -> str:
    """``2 sat, 1 timeout`` (most common first), plus candidates not done yet."""
    counts = Counter(state_label(c) for c in result.candidates)
    return ", ".join(f"{n} {label}" for label, n in counts.most_common()) or "no candidates"


def _number(value: float) -> str:
    return f"{value:g}"


def limits_summary(limits: Limits) -> str:
    """``timeout 5 s, wall 10 s, cpu 8 s, memory 512 MB``, then any limit not at its default."""
    parts = []
    for spec in LIMIT_FIELDS:
        value = getattr(limits, spec.name)
        if spec.name in HEADLINE_LIMITS or value != spec.default:
            unit = spec.metadata["unit"]
            label = spec.metadata["flag"].lstrip("-")
            parts.append(f"{label} {_number(value)}{(' ' + unit) if unit else ''}")
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


def run_summary(result: RunResult) -> str:
    """The one-line header: vote, counts, limits, isolation."""
    done = all(c.verdict is not None for c in result.candidates)
    vote = result.verdict.value if done else "pending"
    text = f"vote: {vote} ({counts_summary(result)}) | limits: {limits_summary(result.limits)}"
    if result.isolation is not None:
        text += f" | isolation {isolation_summary(result.isolation)}"
    if result.interrupted:
        text += " | interrupted"
    return text


# ------------------------------------------------------------------------------------------- text

TEXT_HEADER = f"{'#':>3}  {'verdict':<14} {'kill':<8} {'model / payload':<40}  reason"


def candidate_text(candidate: CandidateResult) -> str:
    """One row of the fixed-width table (no volatile figures)."""
    return (
        f"{candidate.index:>3}  {state_label(candidate):<14} {printable(candidate.kill or ''):<8} "
        f"{model_preview(candidate):<40}  {shorten(candidate.reason)}"
    ).rstrip()


def candidate_live_text(candidate: CandidateResult) -> str:
    """A row printed as a candidate finishes (terminal IPython): the table row plus its figures."""
    figures = (
        f"wall {candidate.wall_s:.2f}s  cpu {candidate.cpu_s:.2f}s  "
        f"mem {candidate.peak_rss_mb:.0f}MB"
    )
    return f"{candidate_text(candidate)}  [{figures}]"


def run_text(result: RunResult) -> str:
    """A fixed-width table with no volatile figures."""
    done = all(c.verdict is not None for c in result.candidates)
    vote = result.verdict.value if done else "pending"
    lines = [f"RunResult: {vote} ({counts_summary(result)})"]
    if result.interrupted:
        lines[0] += " -- interrupted"
    lines += [TEXT_HEADER, "-" * len(TEXT_HEADER)]
    lines.extend(candidate_text(c) for c in result.candidates)
    lines.extend(f"note: {printable(note)}" for note in result.notes)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- MIME bundles

def run_mimebundle(result: RunResult) -> tuple[dict[str, Any], dict[str, Any]]:
    from .html import run_html  # the HTML table lives with the rest of the markup

    data = {
        "text/plain": run_text(result),
        "text/html": run_html(result),
        MIME_TYPE: run_json(result),
    }
    return data, {MIME_TYPE: run_metadata(result)}


def candidate_mimebundle(candidate: CandidateResult) -> tuple[dict[str, Any], dict[str, Any]]:
    from .results import RunResult

    return run_mimebundle(RunResult(candidates=[candidate], limits=candidate.limits or Limits()))

