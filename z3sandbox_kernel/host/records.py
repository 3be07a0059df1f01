"""Run records: one JSON Lines file per run, appended as verdicts land, read back and compared.

A record file ``<record_dir>/<run_id>.jsonl`` holds, one JSON object a line:

1. the header, ``{"record": "run", ...}``: run id, UTC time, package, z3 and Python versions, the
   host, language, limits, run options, the isolation report (the local zygote's; null, with the z3
   version, for a run on a cluster, whose candidates each carry their own), the seed's sha256, and
   per candidate its script's sha256, random seed and label;
2. one ``{"record": "candidate", "run_id": ..., <CandidateResult.to_dict()>}`` per candidate, in
   the order their verdicts land (a crash of the host leaves the ones already known);
3. the end, ``{"record": "end", ...}``: the vote, counts, tie, elapsed time, notes.

``load_runs`` reads files or folders of them into a pandas DataFrame, one row per candidate;
``diff_runs`` compares two runs of the same scripts with BenchExec's rule: a verdict that changed
and is not strictly better is a regression.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import io
import json
import os
import platform
import secrets
import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..hostfiles import Folder
from ..protocol import Hello, IsolationReport
from ..results import CandidateResult, RunResult
from ..verdicts import Verdict
from .plan import RunPlan

RECORD_SCHEMA = "z3sandbox.record"
RECORD_VERSION = 1
# How good a verdict is, for diff_runs: an answer, then no answer for want of resources, then a
# failure of the script or the sandbox, then a wrong answer.  A change to a higher rank is an
# improvement; any other change is a regression (BenchExec: "changed and not strictly better").
VERDICT_RANK: dict[Verdict, int] = {
    **{verdict: 1 for verdict in Verdict},
    Verdict.SAT: 3, Verdict.UNSAT: 3,
    Verdict.UNKNOWN: 2, Verdict.TIMEOUT: 2, Verdict.CPU_LIMIT: 2, Verdict.MEMORY_LIMIT: 2,
    Verdict.OUTPUT_LIMIT: 2,
    Verdict.INVALID_MODEL: 0,
}
# Columns of load_runs() taken from the header, besides the candidate's own fields.
_HEADER_COLUMNS = ("time", "language", "host")
_LEFT_OUT = ("isolation", "limits", "error", "record")  # per run, or flattened into error_*


def new_run_id() -> str:
    """``20261125T204612Z-3f9a1c``: sortable by time, unique by chance."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class RunRecorder:
    """Writes one run's record file as its verdicts land.  Thread-safe (the Sandbox's loop thread
    calls ``candidate``; the caller ``start`` and ``finish``)."""

    def __init__(self, record_dir: str | os.PathLike[str], run_id: str) -> None:
        self.run_id = run_id
        self.path = Path(record_dir) / f"{run_id}.jsonl"
        self._lock = threading.Lock()
        self._file: TextIO | None = None

    def start(self, plan: RunPlan, labels: Sequence[str | None] | None,
              isolation: IsolationReport | None, z3_version: str | None) -> None:
        from .._version import __version__

        # a new file (O_EXCL, no link followed) in a folder that is no link: a link planted in a
        # shared record folder sends no line elsewhere
        with Folder.open(self.path.parent) as folder:
            self._file = io.TextIOWrapper(folder.create(self.path.name), encoding="utf-8")
        labels = list(labels or [])
        self._write({
            "record": "run", "schema": RECORD_SCHEMA, "version": RECORD_VERSION,
            "run_id": self.run_id,
            "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
            "package_version": __version__, "z3_version": z3_version,
            "python_version": platform.python_version(), "host": socket.gethostname(),
            "language": plan.language, "limits": plan.limits.to_dict(),
            "options": {"race": plan.race, "jobs": plan.jobs, "cores": plan.cores,
                        "verify": plan.verify, "require": list(plan.require), "models": plan.models},
            "isolation": isolation,
            "seed_sha256": hashlib.sha256(plan.seed).hexdigest() if plan.seed is not None else None,
            "candidates": [
                {"index": i, "sha256": sha256(script), "random_seed": plan.random_seeds[i],
                 "label": _label(labels, i)}
                for i, script in enumerate(plan.scripts)],
        })

    def candidate(self, candidate: CandidateResult) -> None:
        """Record a candidate whose verdict landed (state changes before that are not recorded)."""
        if candidate.verdict is not None and candidate.state == "done":
            self._write({"record": "candidate", "run_id": self.run_id, **candidate.to_dict()})

    def finish(self, result: RunResult) -> None:
        self._write({"record": "end", "run_id": self.run_id, "verdict": result.verdict.value,
                     "counts": result.counts, "tie": result.tie, "elapsed_s": result.elapsed_s,
                     "interrupted": result.interrupted, "notes": list(result.notes)})
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def _write(self, line: dict[str, Any]) -> None:
        text = json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            if self._file is not None:
                self._file.write(text)
                self._file.flush()  # a reader (or a crash) sees each verdict as it lands


def _label(labels: list[str | None], index: int) -> str | None:
    """One label per candidate, or one for every K seed of one script."""
    if len(labels) == 1:
        return labels[0]
    return labels[index] if 0 <= index < len(labels) else None


class Recording:
    """One run's id and candidate labels, and its record file when ``record_dir`` is given."""

    def __init__(self, record_dir: str | os.PathLike[str] | None,
                 labels: Sequence[str | None] | None) -> None:
        self.run_id = new_run_id()
        self.labels = list(labels) if labels is not None else []
        self.recorder = RunRecorder(record_dir, self.run_id) if record_dir else None

    def label(self, candidate: CandidateResult) -> CandidateResult:
        if candidate.label is None and self.labels:
            candidate.label = _label(self.labels, candidate.index)
        return candidate

    def wrap(self, emit: Callable[[CandidateResult], None]) -> Callable[[CandidateResult], None]:
        """``emit`` that labels each update and records each verdict as it lands."""
        def recorded(candidate: CandidateResult) -> None:
            self.label(candidate)
            if self.recorder is not None:
                self.recorder.candidate(candidate)
            emit(candidate)
        return recorded

    def start(self, plan: RunPlan, hello: Hello | None) -> None:
        if self.recorder is not None:
            self.recorder.start(plan, self.labels, hello["isolation"] if hello else None,
                                hello["z3_version"] if hello else None)

    def finish(self, result: RunResult) -> None:
        result.run_id = self.run_id
        for candidate in result.candidates:
            self.label(candidate)
        if self.recorder is not None:
            self.recorder.finish(result)

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()


# ------------------------------------------------------------------------------------- reading

def record_files(path: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The record files a path names: a file, a folder's ``*.jsonl`` (oldest run first), or a list."""
    if not isinstance(path, (str, os.PathLike)):
        return [file for item in path for file in record_files(item)]
    given = Path(path)
    return sorted(given.glob("*.jsonl")) if given.is_dir() else [given]


def read_record(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The lines of one record file.  A last line cut short (the writer died mid-line) is left
    out; any other line that is not a JSON object is an error naming the file and line."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            if number == len(lines):
                break
            raise ValueError(f"{path}:{number}: not a JSON line of a run record") from None
        if not isinstance(value, dict) or "record" not in value:
            raise ValueError(f"{path}:{number}: not a line of a z3sandbox run record")
        records.append(value)
    if not records or records[0]["record"] != "run" or records[0].get("schema") != RECORD_SCHEMA:
        raise ValueError(f"{path}: not a z3sandbox run record (no header line)")
    return records


def candidate_rows(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """One flat dict per recorded candidate, with its run's id, time, script sha256 and label."""
    header, *rest = read_record(path)
    scripts = {entry["index"]: entry for entry in header.get("candidates", [])}
    rows = []
    for line in rest:
        if line["record"] != "candidate":
            continue
        script = scripts.get(line.get("index"), {})
        error = line.get("error") or {}
        row = {"run_id": header["run_id"], **{k: header.get(k) for k in _HEADER_COLUMNS},
               "sha256": script.get("sha256"), "random_seed": script.get("random_seed"),
               **{k: v for k, v in line.items() if k not in _LEFT_OUT and k != "run_id"},
               "error_type": error.get("type"), "error_line": error.get("line"),
               "error_message": error.get("message")}
        if row.get("label") is None:
            row["label"] = script.get("label")
        rows.append(row)
    return rows


def load_runs(path: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> Any:
    """Run records as a pandas DataFrame, one row per candidate: ``run_id``, ``time``, ``index``,
    ``label``, ``sha256`` (its script), ``verdict``, ``reason``, ``error_type``, ``error_line``,
    ``wall_s``, ``cpu_s``, ... .  ``path``: a record file, a folder of them (``record_dir``), or
    a list of either.  Needs pandas (``pip install pandas``, the ``[records]`` extra)."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("load_runs() needs pandas, which is not installed: pip install pandas "
                          "(the [records] extra); the files are JSON Lines") from None
    # a run's candidates in index order (a record holds them in the order their verdicts landed)
    rows = [row for file in record_files(path)
            for row in sorted(candidate_rows(file), key=lambda row: row.get("index", 0))]
    frame = pd.DataFrame(rows)
    for column in ("error_line", "random_seed"):
        if column in frame:
            frame[column] = frame[column].astype("Int64")  # whole numbers, or <NA>
    return frame


def run_from_record(path: str | os.PathLike[str]) -> RunResult:
    """The ``RunResult`` a record file holds (candidates not recorded yet are left out)."""
    from ..limits import Limits

    header, *rest = read_record(path)
    candidates = {}
    for line in rest:
        if line["record"] == "candidate":
            candidate = CandidateResult.from_dict({k: v for k, v in line.items() if k != "limits"})
            candidate.limits = Limits.from_dict(line["limits"]) if line.get("limits") else None
            candidates[candidate.index] = candidate
    end = next((line for line in rest if line["record"] == "end"), {})
    labels = {entry["index"]: entry.get("label") for entry in header.get("candidates", [])}
    for candidate in candidates.values():
        candidate.label = candidate.label or labels.get(candidate.index)
    return RunResult(candidates=[candidates[i] for i in sorted(candidates)],
                     limits=Limits.from_dict(header["limits"]), language=header["language"],
                     isolation=header.get("isolation"), notes=end.get("notes", []),
                     interrupted=end.get("interrupted", False), elapsed_s=end.get("elapsed_s", 0.0),
                     run_id=header["run_id"])


# ----------------------------------------------------------------------------------- comparing

@dataclass(frozen=True)
class Change:
    """One candidate whose verdict differs between two runs."""

    index: int
    label: str | None
    before: str | None  # verdict, None: not in that run
    after: str | None
    kind: str  # "improvement" or "regression"


@dataclass(frozen=True)
class RunDiff:
    """What changed from run ``before`` to run ``after`` (``diff_runs``)."""

    before: str  # run ids (empty for a result that has none)
    after: str
    verdict_before: str
    verdict_after: str
    changes: tuple[Change, ...]
    unchanged: int

    @property
    def regressions(self) -> list[Change]:
        return [change for change in self.changes if change.kind == "regression"]

    @property
    def improvements(self) -> list[Change]:
        return [change for change in self.changes if change.kind == "improvement"]

    def to_dicts(self) -> list[dict[str, Any]]:
        return [dataclasses.asdict(change) for change in self.changes]

    def __str__(self) -> str:
        head = (f"run {self.before or '?'} -> {self.after or '?'}: vote {self.verdict_before} -> "
                f"{self.verdict_after}; {len(self.regressions)} regressions, "
                f"{len(self.improvements)} improvements, {self.unchanged} unchanged")
        rows = [f"  {change.kind:<11} #{change.index}{f' {change.label!r}' if change.label else ''}: "
                f"{change.before} -> {change.after}" for change in self.changes]
        return "\n".join([head, *rows])


def _as_run(run: RunResult | str | os.PathLike[str]) -> RunResult:
    return run if isinstance(run, RunResult) else run_from_record(run)


def _kind(before: str | None, after: str | None) -> str:
    rank_before = VERDICT_RANK[Verdict(before)] if before else -1
    rank_after = VERDICT_RANK[Verdict(after)] if after else -1
    return "improvement" if rank_after > rank_before else "regression"


def diff_runs(before: RunResult | str | os.PathLike[str],
              after: RunResult | str | os.PathLike[str]) -> RunDiff:
    """Compare two runs of the same scripts, candidate by candidate (by index): each verdict that
    changed is an ``improvement`` when strictly better (an answer beats running out of a limit,
    which beats a failure, which beats a wrong model) and a ``regression`` otherwise, sat <-> unsat
    included (BenchExec's rule).  ``before``/``after``: a ``RunResult`` or a record file."""
    old, new = _as_run(before), _as_run(after)
    verdicts_old = {c.index: (c.verdict.value if c.verdict else None, c.label) for c in old}
    verdicts_new = {c.index: (c.verdict.value if c.verdict else None, c.label) for c in new}
    changes, unchanged = [], 0
    for index in sorted(set(verdicts_old) | set(verdicts_new)):
        was, label_old = verdicts_old.get(index, (None, None))
        now, label_new = verdicts_new.get(index, (None, None))
        if was == now:
            unchanged += 1
            continue
        changes.append(Change(index, label_new or label_old, was, now, _kind(was, now)))
    return RunDiff(old.run_id, new.run_id, old.verdict.value, new.verdict.value, tuple(changes),
                   unchanged)
