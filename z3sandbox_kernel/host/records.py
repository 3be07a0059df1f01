"""Run records: one JSON Lines file per run, appended as verdicts land; read back and compared
by host/records_read.py and host/run_diff.py.

A record file ``<record_dir>/<run_id>.jsonl`` holds, one JSON object a line (``json_line``: split
on ``\\n`` alone, every other line-breaking character escaped, so no candidate's text can break
it):

1. the header, ``{"record": "run", ...}``: run id, UTC time, package, z3 and Python versions, the
   host, language, limits, run options, the isolation report by reference (``isolation_ref``: the
   file ``isolation-<sha256>.json`` beside it, written once per folder and report; null, with the
   z3 version, for a run on a cluster, whose candidates each carry their own), the seed's sha256,
   the repair loop's id and round (``repair()``), and per candidate its script's sha256, random
   seed, label, expected verdict (``expected=``) and, with ``record_scripts=True``, the script
   itself;
2. one ``{"record": "candidate", "run_id": ..., <CandidateResult.to_dict()>}`` per candidate, in
   the order their verdicts land (a crash of the host leaves the ones already known), without the
   isolation report when its layers (each on or off) are the header's, and with ``unchecked``:
   what no verifier checked of its answer, in words (host/claims.py), when there is any;
3. the end, ``{"record": "end", ...}``: the vote, counts, tie, elapsed time, notes.

Run ids sort by the time the run started (UTC, to the microsecond), so a folder of records lists
as an experiment log.  ``load_runs`` reads files, folders, or folders of folders (an eval) into a
pandas DataFrame, one row per candidate; ``diff_runs`` (host/run_diff.py) compares two runs or two
folders.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import io
import os
import platform
import secrets
import socket
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TextIO

from ..contracts.hostfiles import Folder
from ..contracts.results import CandidateResult, PlannedCandidate, RunResult
from ..protocol import Hello, IsolationReport
from .claims import unchecked
from .plan import RunPlan
from .records_read import (
    RECORD_SCHEMA,
    RECORD_VERSION,
    isolation_name,
    json_line,
    load_runs,
    read_record,
    record_files,
    run_from_record,
)

__all__ = ["RECORD_SCHEMA", "Recording", "RunRecorder", "load_runs", "new_run_id", "read_record",
           "record_files", "run_from_record", "sha256"]

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
        self._verify = True

    def start(self, plan: RunPlan, isolation: IsolationReport | None, z3_version: str | None) -> None:
        from ..contracts._version import __version__

        options = plan.options

        # a new file (O_EXCL, no link followed) in a folder that is no link: a link planted in a
        # shared record folder sends no line elsewhere
        with Folder.open(self.path.parent) as folder:
            self._file = io.TextIOWrapper(folder.create(self.path.name), encoding="utf-8")
            reference = _keep_isolation(folder, isolation) if isolation is not None else None
        self._isolation = isolation
        self._verify = options.verify
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
            **({"isolation_ref": reference} if reference else {"isolation": None}),
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
            words = unchecked(candidate, self._verify)
            if words:
                line["unchecked"] = "; ".join(words)
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
        text = json_line(line) + "\n"
        with self._lock:
            if self._file is not None:
                self._file.write(text)
                self._file.flush()  # a reader (or a crash) sees each verdict as it lands


def _keep_isolation(folder: Folder, report: IsolationReport) -> str:
    """The name of the file in ``folder`` holding ``report``, written once (whole, or not at all:
    ``Folder.write_new``) by the first run of this folder that has it."""
    name = isolation_name(report)
    try:
        os.stat(name, dir_fd=folder.fd, follow_symlinks=False)
    except FileNotFoundError:
        folder.write_new(name, json_line(report).encode("utf-8"))
    return name


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
