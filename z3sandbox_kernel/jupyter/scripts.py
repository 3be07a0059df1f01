"""The candidates of one run: the cell body split on ``# %% candidate [NAME]`` lines, or the
scripts in ``--candidates VAR`` (a list, or a dict whose keys name them), and how each result row
is labelled and its reason's line numbers counted in the cell."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from IPython.core.error import UsageError

from ..contracts.results import CandidateResult, RunResult
from ..presentation.phrases import source_preview
from ..protocol.verdicts import Verdict

# A line of its own that starts a new candidate in the cell body, with an optional name.
CANDIDATE_SEPARATOR = re.compile(
    r"^[ \t]*#[ \t]*%%[ \t]*candidate(?:[ \t]+(?P<name>[^\n]*?))?[ \t]*$", re.MULTILINE
)


@dataclass(frozen=True)
class Script:
    """One candidate's source, its name, and where it starts: ``first_line`` is the cell line of
    its own line 1 (the ``%%z3sandbox`` line is cell line 1), or None outside a cell."""

    source: str
    label: str | None = None
    first_line: int | None = None


def split_cell(body: str) -> list[Script]:
    """The cell body's candidates.  Text before the first separator is a candidate only if it is
    not blank; an empty candidate between separators is an error, not a silent renumbering."""
    pieces: list[tuple[str, str | None, int]] = []  # source, label, body offset (chars)
    start, label = 0, None
    for match in CANDIDATE_SEPARATOR.finditer(body):
        pieces.append((body[start:match.start()], label, start))
        start, label = match.end() + 1, (match.group("name") or None)
    pieces.append((body[start:], label, start))
    if len(pieces) > 1 and not pieces[0][0].strip():
        pieces = pieces[1:]
    scripts = []
    for number, (source, name, offset) in enumerate(pieces):
        if len(pieces) > 1 and not source.strip():
            raise UsageError(f"candidate {number} of the cell is empty (one separator too many?)")
        scripts.append(Script(source, name, body.count("\n", 0, offset) + 2))
    return [script for script in scripts if script.source.strip()]


_LINE = re.compile(r"\bline (\d+)")


def cell_lines(reason: str, first_line: int, several: bool) -> str:
    """``line 2`` of a candidate that starts on cell line 11 reads ``line 12``, the line the user
    sees in the editor, and ``line 12 [candidate line 2]`` when the cell holds ``several``
    candidates (the one rule of every view: row_details.line_place)."""
    def place(match: re.Match[str]) -> str:
        line = f"line {int(match[1]) + first_line - 1}"
        return f"{line} [candidate line {match[1]}]" if several else line

    return _LINE.sub(place, reason)


# NameError's message: "name 'x' is not defined" (3.10+ may add ". Did you mean: 'y'?").
_UNDEFINED = re.compile(r"name '(\w+)' is not defined")


def notebook_name_hint(candidate: CandidateResult, namespace: Mapping[str, Any]) -> None:
    """A NameError on a name the notebook defines: say that the sandbox does not see it."""
    error = candidate.error
    if error is None or error["type"] != "NameError":
        return
    match = _UNDEFINED.search(error["message"])
    if match is None or match.group(1) not in namespace:
        return
    hint = (f" ({match.group(1)!r} is a notebook variable: notebook variables are not visible inside "
            "the sandbox, where each candidate runs alone in a fresh process; define it in the script)")
    if hint not in error["message"]:
        candidate.error = {"type": error["type"], "line": error["line"], "message": error["message"] + hint}
        candidate.reason += hint


# A row its Stop button stopped: the engine says "cancelled" (or "skipped before it started").
STOPPED = "stopped (Stop button)"


def annotator(scripts: list[Script], k: int | None, namespace: Mapping[str, Any] | None = None,
              stopped: Collection[int] = ()) -> Callable[[CandidateResult], CandidateResult]:
    """Name a candidate, give it a source preview (with ``k``: its random seed instead), count its
    reason's lines in the cell, explain a NameError on a name of the notebook's ``namespace``,
    and say that a row was ``stopped`` by its Stop button (the set fills while the run goes)."""

    def annotate(candidate: CandidateResult) -> CandidateResult:
        if namespace is not None:
            notebook_name_hint(candidate, namespace)
        if candidate.index in stopped and candidate.verdict is Verdict.CANCELLED:
            started = candidate.kill is not None  # a queued row is skipped: no process to kill
            candidate.reason = STOPPED if started else f"{STOPPED} before it started"
        if len(scripts) == 1:
            script: Script | None = scripts[0]
        else:
            script = scripts[candidate.index] if k is None and candidate.index < len(scripts) else None
        if script is None:
            return candidate
        if k is not None:  # one script, K random seeds (host/plan.py: candidate i has seed i)
            seed = f"seed {candidate.index}"
            candidate.label = f"{script.label} {seed}" if script.label else seed
            candidate.source_preview = None  # the same line K times says nothing
        else:
            candidate.label = script.label
            candidate.source_preview = source_preview(script.source)
        if script.first_line is not None:  # its lines as the cell counts them, in every view
            candidate.cell_line, candidate.cell_candidates = script.first_line, len(scripts)
            if candidate.reason:
                candidate.reason = cell_lines(candidate.reason, script.first_line, len(scripts) > 1)
        return candidate

    return annotate


def scripts_from(value: object, name: str) -> list[Script]:
    """The scripts in ``--candidates VAR``: a string, a list or tuple of strings, or a dict of
    name -> string (the names label the candidates)."""
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise UsageError(f"--candidates {name}: the dict's keys must be names (strings)")
        sources = scripts_from(list(value.values()), name)
        return [Script(script.source, key) for script, key in zip(sources, value, strict=True)]
    scripts = [value] if isinstance(value, str) else value
    if not isinstance(scripts, (list, tuple)):
        raise UsageError(
            f"--candidates {name}: expected a list (or dict) of script strings, not {type(value).__name__}"
        )
    if not scripts:
        raise UsageError(f"--candidates {name}: the list is empty")
    for number, script in enumerate(scripts):
        if not isinstance(script, str):
            raise UsageError(
                f"--candidates {name}: item {number} is of type {type(script).__name__}, "
                "not a string"
            )
    return [Script(script) for script in scripts]


def annotated(result: RunResult, annotate: Callable[[CandidateResult], CandidateResult]) -> RunResult:
    for candidate in result.candidates:
        annotate(candidate)
    return result


def empty_body_as_line_magic(lines: list[str]) -> list[str]:
    """``%%z3sandbox --candidates VAR`` with nothing below it runs as the line magic (IPython
    refuses a cell magic whose body is empty).  An input transformer, registered on load."""
    if lines and lines[0].startswith("%%z3sandbox") and not "".join(lines[1:]).strip():
        return [lines[0][1:].rstrip("\n") + "\n"]
    return lines


# Applied when a cell runs, never when terminal IPython asks whether what was typed is complete
# (IPython skips transformers with side effects there): so a half-typed "%%z3sandbox --cores" + Enter
# waits for its body, as any cell magic does, instead of running at once as the line magic.
empty_body_as_line_magic.has_side_effects = True  # type: ignore[attr-defined]
