"""Run records: one JSON Lines file per run, appended as verdicts land, read back and compared.

A record file ``<record_dir>/<run_id>.jsonl`` holds, one JSON object a line:

1. the header, ``{"record": "run", ...}``: run id, UTC time, package, z3 and Python versions, the
   host, language, limits, run options, the isolation report (the local zygote's; null, with the z3
   version, for a run on a cluster, whose candidates each carry their own), the seed's sha256, the
   repair loop's id and round (``repair()``), and per candidate its script's sha256, random seed,
   label, expected verdict (``expected=``) and, with ``record_scripts=True``, the script itself;
2. one ``{"record": "candidate", "run_id": ..., <CandidateResult.to_dict()>}`` per candidate, in
   the order their verdicts land (a crash of the host leaves the ones already known), without the
   isolation report when its layers (each on or off) are the header's;
3. the end, ``{"record": "end", ...}``: the vote, counts, tie, elapsed time, notes.

Run ids sort by the time the run started (UTC, to the microsecond), so a folder of records lists
as an experiment log.  ``load_runs`` reads files or folders of them into a pandas DataFrame, one row
per candidate; ``diff_runs`` (host/run_diff.py) compares two runs.
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
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

from ..hostfiles import Folder
from ..protocol import Hello, IsolationReport
from ..results import CandidateResult, PlannedCandidate, RunResult
from .plan import RunPlan

RECORD_SCHEMA = "z3sandbox.record"
RECORD_VERSION = 1
# Columns of load_runs() taken from the header, besides the candidate's own fields.
_HEADER_COLUMNS = ("time", "language", "host")
_LEFT_OUT = ("isolation", "limits", "error", "record")  # per run, or flattened into error_*
_last_id_time = datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
_id_lock = threading.Lock()


def new_run_id() -> str:
    """``20261125T204612.123456Z-3f9a1c``: the UTC time the run started, to the microsecond (one
    process never gives the same time twice), so that ids sort by time; unique by chance across
    processes."""
    global _last_id_time
    with _id_lock:
        now = max(datetime.datetime.now(datetime.timezone.utc),
                  _last_id_time + datetime.timedelta(microseconds=1))
        _last_id_time = now
    return f"{now:%Y%m%dT%H%M%S.%fZ}-{secrets.token_hex(3)}"


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
        self._isolation: IsolationReport | None = None

    def start(self, plan: RunPlan, isolation: IsolationReport | None, z3_version: str | None) -> None:
        from .._version import __version__

        options = plan.options

        # a new file (O_EXCL, no link followed) in a folder that is no link: a link planted in a
        # shared record folder sends no line elsewhere
        with Folder.open(self.path.parent) as folder:
            self._file = io.TextIOWrapper(folder.create(self.path.name), encoding="utf-8")
        self._isolation = isolation
        self._write({
            "record": "run", "schema": RECORD_SCHEMA, "version": RECORD_VERSION,
            "run_id": self.run_id,
            "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
            "package_version": __version__, "z3_version": z3_version,
            "python_version": platform.python_version(), "host": socket.gethostname(),
            "language": options.language, "limits": options.limits.to_dict(),
            "options": {"race": options.race, "jobs": plan.jobs, "cores": options.cores,
                        "verify": options.verify, "require": list(options.require),
                        "models": options.models, "record_scripts": options.record_scripts,
                        "cross_check": options.cross_check},
            "isolation": isolation,
            "seed_sha256": hashlib.sha256(options.seed).hexdigest() if options.seed is not None else None,
            **({"repair": dataclasses.asdict(options.repair)} if options.repair else {}),
            "candidates": planned_candidates(plan, options.record_scripts),
        })

    def candidate(self, candidate: CandidateResult) -> None:
        """Record a candidate whose verdict landed (state changes before that are not recorded);
        its isolation report only when its layers are not the header's."""
        if candidate.verdict is not None and candidate.state == "done":
            line = {"record": "candidate", "run_id": self.run_id, **candidate.to_dict()}
            if _active_layers(candidate.isolation) == _active_layers(self._isolation):
                del line["isolation"]
            self._write(line)

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

    def _write(self, line: Mapping[str, object]) -> None:
        text = json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            if self._file is not None:
                self._file.write(text)
                self._file.flush()  # a reader (or a crash) sees each verdict as it lands


def _active_layers(report: IsolationReport | None) -> object:
    """What a record compares of two isolation reports: the level and each layer on or off (the
    details say how each applied, and a candidate's may say more than the zygote's probe)."""
    if report is None:
        return None
    layers = sorted((layer["name"], bool(layer.get("active"))) for layer in report["layers"])
    return report.get("level"), layers


def planned_candidates(plan: RunPlan, record_scripts: bool = False) -> list[PlannedCandidate]:
    """Per candidate what the run was asked, as the header holds it (``RunResult.planned``): its
    index, script sha256, random seed, label, expected verdict and, if asked, its script."""
    def at(values: tuple[str | None, ...], index: int) -> str | None:
        return values[index] if index < len(values) else None

    planned = []
    for i, script in enumerate(plan.scripts):
        entry: PlannedCandidate = {"index": i, "sha256": sha256(script),
                                   "random_seed": plan.random_seeds[i], "label": at(plan.labels, i)}
        if plan.expected:
            entry["expected"] = at(plan.expected, i)
        if record_scripts:
            entry["script"] = script
        planned.append(entry)
    return planned


class Recording:
    """One run's id and candidate labels, and its record file when the plan's options name a
    ``record_dir``."""

    def __init__(self, plan: RunPlan) -> None:
        self.run_id = new_run_id()
        self.plan = plan
        record_dir = plan.options.record_dir
        self.recorder = RunRecorder(record_dir, self.run_id) if record_dir else None

    def label(self, candidate: CandidateResult) -> CandidateResult:
        labels = self.plan.labels
        if candidate.label is None and 0 <= candidate.index < len(labels):
            candidate.label = labels[candidate.index]
        return candidate

    def wrap(self, emit: Callable[[CandidateResult], None]) -> Callable[[CandidateResult], None]:
        """``emit`` that labels each update and records each verdict as it lands."""
        def recorded(candidate: CandidateResult) -> None:
            self.label(candidate)
            if self.recorder is not None:
                self.recorder.candidate(candidate)
            emit(candidate)
        return recorded

    def start(self, hello: Hello | None) -> None:
        if self.recorder is not None:
            self.recorder.start(self.plan, hello["isolation"] if hello else None,
                                hello["z3_version"] if hello else None)

    def finish(self, result: RunResult) -> None:
        result.run_id = self.run_id
        result.planned = planned_candidates(self.plan)
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
        repair = header.get("repair") or {}
        row = {"run_id": header["run_id"], **{k: header.get(k) for k in _HEADER_COLUMNS},
               "repair_id": repair.get("id"), "repair_round": repair.get("round"),
               "sha256": script.get("sha256"), "random_seed": script.get("random_seed"),
               **{k: v for k, v in line.items() if k not in _LEFT_OUT and k != "run_id"},
               "expected": script.get("expected"),
               "error_type": error.get("type"), "error_line": error.get("line"),
               "error_message": error.get("message")}
        row["as_expected"] = None if row["expected"] is None else row["verdict"] == row["expected"]
        if "script" in script:
            row["script"] = script["script"]
        if row.get("label") is None:
            row["label"] = script.get("label")
        rows.append(row)
    return rows


def load_runs(path: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> Any:
    """Run records as a pandas DataFrame, one row per candidate: ``run_id``, ``time``, ``index``,
    ``label``, ``sha256`` (its script), ``verdict``, ``expected`` and ``as_expected`` (when the
    run was given ``expected=``), ``reason``, ``error_type``, ``error_line``, ``wall_s``,
    ``cpu_s``, ``repair_id`` and ``repair_round`` (a round of ``repair()``), ``script`` (with
    ``record_scripts=True``), ... .  ``path``: a record file, a folder of them (``record_dir``), or
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
    for column in ("error_line", "random_seed", "repair_round"):
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
            candidate.isolation = line.get("isolation", header.get("isolation"))
            candidates[candidate.index] = candidate
    end = next((line for line in rest if line["record"] == "end"), {})
    labels = {entry["index"]: entry.get("label") for entry in header.get("candidates", [])}
    for candidate in candidates.values():
        candidate.label = candidate.label or labels.get(candidate.index)
    return RunResult(candidates=[candidates[i] for i in sorted(candidates)],
                     limits=Limits.from_dict(header["limits"]), language=header["language"],
                     isolation=header.get("isolation"), notes=end.get("notes", []),
                     interrupted=end.get("interrupted", False), elapsed_s=end.get("elapsed_s", 0.0),
                     run_id=header["run_id"], planned=header.get("candidates", []))
