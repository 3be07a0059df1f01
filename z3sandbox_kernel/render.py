"""How results look: the ``application/vnd.z3sandbox.run+json`` document, text and HTML tables.

The JSON schema (``MIME_TYPE``, ``SCHEMA_VERSION`` 1) -- the labextension renders it::

    {
      "schema": "z3sandbox.run", "version": 1,
      "verdict": "sat",                       # RunResult.verdict (the vote)
      "counts": {"sat": 3, "timeout": 1},     # verdict -> number of candidates
      "language": "python",
      "limits": {"timeout_s": 5.0, ...},      # Limits.to_dict()
      "isolation": {"level": "kernel", "layers": [{"name": ..., "active": ..., "detail": ...}]} | null,
      "notes": ["..."],                       # e.g. a restarted zygote
      "interrupted": false,
      "candidates": [ {                        # CandidateDict without the volatile figures
          "index": 0, "verdict": "sat", "reason": "", "model": {"x": 3, "r": {"fraction": [1, 2]}},
          "payload_hex": "4142" | null, "payload_error": null, "unsat_core": [[3, "s.add(x > 2)"]] | null,
          "stdout": "", "stderr": "", "stdout_truncated": false, "stderr_truncated": false,
          "kill": null, "exit_code": 0, "signal": null, "verified": true } ]
    }

Volatile figures (wall_s, cpu_s, peak_rss_mb, elapsed_s) go in the output *metadata* under the same
MIME type as ``{"elapsed_s": ..., "timings": [{"index", "wall_s", "cpu_s", "peak_rss_mb"}]}`` so that
a saved notebook stays byte-identical from run to run and nbval can compare it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .results import CandidateResult, RunResult

MIME_TYPE = "application/vnd.z3sandbox.run+json"
SCHEMA_VERSION = 1
VOLATILE_FIELDS = ("wall_s", "cpu_s", "peak_rss_mb")


def candidate_json(candidate: CandidateResult) -> dict[str, Any]:
    data = candidate.to_dict()
    for name in (*VOLATILE_FIELDS, "isolation", "host"):
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


def model_preview(candidate: CandidateResult, width: int = 40) -> str:
    if candidate.payload is not None:
        text = candidate.payload.hex(" ")
    elif candidate.model:
        text = ", ".join(f"{k}={v}" for k, v in candidate.model.items())
    else:
        text = ""
    return text if len(text) <= width else text[: width - 1] + "…"


def shorten(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def run_text(result: RunResult) -> str:
    """A fixed-width table with no volatile figures."""
    header = f"{'#':>3}  {'verdict':<14} {'kill':<8} {'model / payload':<40}  reason"
    lines = [
        f"RunResult: {result.verdict.value} "
        f"({', '.join(f'{v} {n}' for v, n in sorted(result.counts.items()))})",
        header,
        "-" * len(header),
    ]
    for c in result.candidates:
        lines.append(
            f"{c.index:>3}  {c.verdict.value:<14} {c.kill or '':<8} {model_preview(c):<40}  "
            f"{shorten(c.reason)}"
        )
    lines.extend(f"note: {note}" for note in result.notes)
    return "\n".join(lines)


def run_mimebundle(result: RunResult) -> tuple[dict[str, Any], dict[str, Any]]:
    from .html import run_html  # the HTML table lives with the rest of the markup

    data = {"text/plain": run_text(result), "text/html": run_html(result), MIME_TYPE: run_json(result)}
    return data, {MIME_TYPE: run_metadata(result)}


def candidate_mimebundle(candidate: CandidateResult) -> tuple[dict[str, Any], dict[str, Any]]:
    from .results import RunResult

    return run_mimebundle(RunResult(candidates=[candidate]))
