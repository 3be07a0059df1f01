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
      "columns": [{"key": "index", "title": "#"}, ...,    # TABLE_COLUMNS, in order (volatile too);
                  {"key": "wall_s", "title": "wall", "unit": "s"}, ...],  # a figure has its unit
      "isolation_summary": "kernel: userns ...; missing: netns",   # the one-line summary
      "isolation_shortfall": "" | "process: ...; missing: userns ...",  # the summary when a layer
                                              # the best isolation has is missing, else ""
      "limits_shown": [["timeout", "5 s"], ["memory", "512 MB"], ...],  # each limit, with its unit
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
          "checks": [{"verdict": "sat", "line": 5, "model": {...}, "payload_hex": ...,
                      "payload_error": ..., "verified": true}],  # only when the script checked
          "checks_made": 4,                   # more than once: each check, in order (at most 100;
                                              # checks_made says how many it made)
          "show_output": false,               # its row shows stdout inline (alone, or failed)
          "cells": {"model": "x=3", "reason": "", "kill": ""},   # those columns' text as the
                                              # text table shows it (render from it, don't format)
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
show_output, delta, control, objectives, objective, more_models, further_models, checks, checks_made,
cells, isolation_summary, limits_shown, the columns' unit and isolation_shortfall were added that way.

Volatile figures (wall_s, cpu_s, peak_rss_mb, elapsed_s) go in the output *metadata* under the same
MIME type as ``{"elapsed_s": ..., "timings": [{"index", "wall_s", "cpu_s", "peak_rss_mb"}]}``, so
that a saved notebook stays byte-identical from run to run and nbval can compare it.  A live
refresh adds ``{"index", "running_s"}`` for each running candidate (its elapsed time so far).

A candidate's ``verdict`` is null only in a partial document built while a run is still going
(never in a finished ``RunResult``).  Everything a candidate wrote (reason, model, stdout) is
untrusted: the text renderings replace control characters, and ``html.run_html`` escapes it all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import results
from .html import candidate_html, run_html
from .phrases import (
    SAVED_COLUMNS,
    TABLE_COLUMNS,
    finished,
    isolation_shortfall,
    isolation_summary,
    limits_shown,
    progress,
    progress_summary,
)
from .shown import (
    further_models,
    objective_summary,
    shown_verdict,
    shows_output,
    smt2_core_answer,
)
from .textview import candidate_alone_text, run_text

if TYPE_CHECKING:
    from ..results import CandidateResult, RunResult

MIME_TYPE = "application/vnd.z3sandbox.run+json"
SCHEMA_VERSION = 1
VOLATILE_FIELDS = ("wall_s", "cpu_s", "peak_rss_mb")
# Fields of CandidateResult that the JSON document leaves out: volatile, per-machine or live-only.
_NOT_IN_JSON = (*VOLATILE_FIELDS, "isolation", "host", "state", "limits")  # limits: once, per run
_ONLY_IF_ANY = ("objectives", "more_models", "confirmed_by", "disputed", "checks", "checks_made")
# The columns whose text the labextension draws as it is ("cells"); the others are markup made
# from fields the document has anyway (index, a badge from "shown", the label and source preview).
_CELLS = frozenset({"kill", "model", "reason"})


# ------------------------------------------------------------------------------------------- JSON

def candidate_json(candidate: CandidateResult, live: bool = False, alone: bool = False) -> dict[str, Any]:
    """``live``: a document refreshed while the run goes leaves stdout and stderr out (empty), as
    K candidates' output, resent at every refresh, would be megabytes; the final one has them.
    ``alone``: the run's only candidate (its stdout is shown in its row)."""
    data = candidate.to_dict()
    for name in _NOT_IN_JSON:
        data.pop(name, None)
    if candidate.checks_made <= 1:  # one check: its verdict and model say it all
        data["checks"] = data["checks_made"] = None
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
    if further_models(candidate):  # models=N, or models read at checks ("checks")
        data["further_models"] = further_models(candidate)
    data["show_output"] = shows_output(candidate, alone) and not live
    # Each saved column's text as the text and HTML tables show it: the labextension draws these
    # (its own markup around them: badges, folding), it does not format cells again.
    data["cells"] = {column.key: column.text(candidate) for column in SAVED_COLUMNS
                     if column.key in _CELLS}
    return data


def run_json(result: RunResult, view: str = "run") -> dict[str, Any]:
    return {
        "schema": "z3sandbox.run",
        "version": SCHEMA_VERSION,
        "verdict": result.verdict.value,
        "vote": result.vote,  # in prove()'s words for a run of prove() calls
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
        "columns": [{"key": column.key, "title": column.title,
                     **({"unit": column.unit} if column.unit else {})} for column in TABLE_COLUMNS],
        "isolation_summary": isolation_summary(result.isolation),
        "isolation_shortfall": isolation_shortfall(result.isolation),
        "limits_shown": limits_shown(result.limits),
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


# ---------------------------------------------------------------------------------- MIME bundles

def run_mimebundle(result: RunResult) -> tuple[dict[str, Any], dict[str, Any]]:
    """The display of a run, live (some verdicts missing) or final: the same table either way."""
    text = run_text(result)
    if not finished(result):
        text = f"{text}\nprogress: {progress_summary(result)} (incomplete)"
    data = {"text/plain": text, "text/html": run_html(result), MIME_TYPE: run_json(result)}
    return data, {MIME_TYPE: run_metadata(result)}


def candidate_mimebundle(candidate: CandidateResult, alone: RunResult
                         ) -> tuple[dict[str, Any], dict[str, Any]]:
    """One candidate: its own text and HTML; the document is ``alone`` (a run of it alone, which
    results.py makes), with ``view: candidate``."""
    data = {
        "text/plain": candidate_alone_text(candidate),
        "text/html": candidate_html(candidate),
        MIME_TYPE: run_json(alone, view="candidate"),
    }
    return data, {MIME_TYPE: run_metadata(alone)}


def table_rows(result: RunResult) -> list[dict[str, Any]]:
    """One dict per candidate, keyed by the table's columns (``phrases.TABLE_COLUMNS``)."""
    return [{column.key: column.value(c) for column in TABLE_COLUMNS} for c in result.candidates]


class _Views:
    """How results show themselves (``results.Views``): this module's functions."""

    run_mimebundle = staticmethod(run_mimebundle)
    run_text = staticmethod(run_text)
    candidate_mimebundle = staticmethod(candidate_mimebundle)
    candidate_alone_text = staticmethod(candidate_alone_text)
    table_rows = staticmethod(table_rows)


# results.py imports no presentation: the presentation registers itself with it, once imported
# (the package's public names import this module with them: __init__.py).
results.show_with(_Views())
