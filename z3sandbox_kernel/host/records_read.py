"""Reading run records back (host/records.py writes them): one file, a folder, or a folder of
folders (an eval: one sub-folder per configuration), as lines, ``RunResult``s or one pandas row per
candidate.

A record is JSON Lines split on ``\\n`` alone.  ``str.splitlines`` would also split on U+2028,
U+2029, U+0085 and the C0 separators, which ``json.dumps(ensure_ascii=False)`` leaves raw inside
strings: one candidate printing U+2028 would make its record, and every ``load_runs`` of its
folder, fail.  The writer escapes them too (``json_line``), so each record line is one line for
any reader.

The isolation report is written once per folder (``isolation-<sha256>.json``) and a header names
it (``isolation_ref``); ``read_record`` puts it back in the header, as older records held it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contracts.record import CandidateLine, checked_as
from ..contracts.results import CandidateResult, RunResult
from ..protocol import IsolationReport

if TYPE_CHECKING:
    import pandas

RECORD_SCHEMA = "z3sandbox.record"
RECORD_VERSION = 1
ISOLATION_PREFIX = "isolation-"
# Columns of load_runs() taken from the header, besides the candidate's own fields.
_HEADER_COLUMNS = ("time", "language", "host")
_LEFT_OUT = ("isolation", "limits", "error", "record", "unchecked")  # per run, or flattened
# What json.dumps(ensure_ascii=False) leaves raw and a line reader other than split("\n") breaks
# on (str.splitlines, editors, JavaScript's JSON.parse of a line), and lone surrogates, which
# UTF-8 cannot hold.  JSON escapes C0 controls itself.
_RAW_BREAKS = re.compile("[\x85\u2028\u2029\ud800-\udfff]")
Paths = str | os.PathLike[str] | Iterable[str | os.PathLike[str]]


def json_line(value: object) -> str:
    """``value`` as one record line (without its ``\\n``): UTF-8 text kept readable, every
    character another reader could take for a line break escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _RAW_BREAKS.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def isolation_name(report: IsolationReport) -> str:
    """The file an isolation report is kept in, named by its content (one per distinct report)."""
    canonical = json.dumps(report, sort_keys=True, separators=(",", ":"))
    return f"{ISOLATION_PREFIX}{hashlib.sha256(canonical.encode()).hexdigest()[:16]}.json"


def record_files(path: Paths) -> list[Path]:
    """The record files a path names: a file; a folder's ``*.jsonl`` and those of the folders
    under it, oldest run first (run ids sort by time); or a list of either.  A folder that holds
    none is an error that says so."""
    if not isinstance(path, (str, os.PathLike)):
        return [file for item in path for file in record_files(item)]
    given = Path(path)
    if not given.is_dir():
        return [given]
    found = sorted(given.rglob("*.jsonl"), key=lambda file: (file.name, str(file)))
    if not found:
        raise FileNotFoundError(f"no run records (*.jsonl) in {given} or any folder under it")
    return found


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def read_record(path: str | os.PathLike[str],
                isolations: dict[Path, Any] | None = None) -> list[dict[str, Any]]:
    """The lines of one record file, its header with the isolation report it names.  A last line
    cut short (the writer died mid-line) is left out; any other line that is not a JSON object is
    an error naming the file and line.  ``isolations``: reports already read, by file."""
    lines = _lines(Path(path))
    while lines and not lines[-1].strip():
        lines.pop()
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
    header = records[0]
    reference = header.get("isolation_ref")
    if reference and "isolation" not in header:
        header["isolation"] = _isolation(Path(path).parent / Path(reference).name, isolations)
    return records


def _isolation(file: Path, cache: dict[Path, object] | None) -> object:
    """The isolation report a header names; None when its file is gone."""
    if cache is not None and file in cache:
        return cache[file]
    try:
        report = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        report = None
    if cache is not None:
        cache[file] = report
    return report


def candidate_rows(path: str | os.PathLike[str], root: Path | None = None,
                   records: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One flat dict per recorded candidate, with its run's id, time, script sha256 and label;
    ``folder``: the record's folder relative to ``root`` (an eval's configuration)."""
    header, *rest = records if records is not None else read_record(path)
    scripts = {entry["index"]: entry for entry in header.get("candidates", [])}
    repair = header.get("repair") or {}
    folder = _relative_folder(Path(path), root)
    rows = []
    for line in rest:
        if line["record"] != "candidate":
            continue
        script = scripts.get(line.get("index"), {})
        error = line.get("error") or {}
        row = {"run_id": header["run_id"], **{k: header.get(k) for k in _HEADER_COLUMNS},
               "folder": folder, "repair_id": repair.get("id"), "repair_round": repair.get("round"),
               "sha256": script.get("sha256"), "random_seed": script.get("random_seed"),
               **{k: v for k, v in line.items() if k not in _LEFT_OUT and k != "run_id"},
               "expected": script.get("expected"),
               "error_type": error.get("type"), "error_line": error.get("line"),
               "error_message": error.get("message"), "unchecked": line.get("unchecked")}
        row["as_expected"] = None if row["expected"] is None else row["verdict"] == row["expected"]
        if "script" in script:
            row["script"] = script["script"]
        if row.get("label") is None:
            row["label"] = script.get("label")
        rows.append(row)
    return rows


def _relative_folder(file: Path, root: Path | None) -> str:
    if root is None:
        return "."
    try:
        return file.parent.relative_to(root).as_posix()
    except ValueError:
        return file.parent.as_posix()


def load_runs(path: Paths) -> pandas.DataFrame:
    """Run records as a pandas DataFrame, one row per candidate: ``run_id``, ``time``, ``folder``
    (the record's folder under the one given), ``index``, ``label``, ``sha256`` (its script),
    ``verdict``, ``expected`` and ``as_expected`` (when the run was given ``expected=``),
    ``reason``, ``error_type``, ``error_line``, ``unchecked`` (what the verifier did not check, in
    words), ``wall_s``, ``cpu_s``, ``repair_id`` and ``repair_round`` (a round of ``repair()``),
    ``script`` (with ``record_scripts=True``), ... .  ``path``: a record file, a folder of them
    and of folders of them (an eval's configurations), or a list of these.  Needs pandas (``pip
    install pandas``, the ``[records]`` extra)."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("load_runs() needs pandas, which is not installed: pip install pandas "
                          "(the [records] extra); the files are JSON Lines") from None
    rows = []
    isolations: dict[Path, Any] = {}
    for root, file in _files_with_roots(path):
        records = read_record(file, isolations)
        # a run's candidates in index order (a record holds them in the order their verdicts landed)
        rows += sorted(candidate_rows(file, root, records), key=lambda row: row.get("index", 0))
    frame = pd.DataFrame(rows)
    for column in ("error_line", "random_seed", "repair_round"):
        if column in frame:
            frame[column] = frame[column].astype("Int64")  # whole numbers, or <NA>
    return frame


def _files_with_roots(path: Paths) -> list[tuple[Path | None, Path]]:
    """Each record file a path names, with the folder it was found under (None: named itself)."""
    if not isinstance(path, (str, os.PathLike)):
        return [pair for item in path for pair in _files_with_roots(item)]
    given = Path(path)
    return [(given if given.is_dir() else None, file) for file in record_files(given)]


def run_from_record(path: str | os.PathLike[str], records: list[dict[str, Any]] | None = None) -> RunResult:
    """The ``RunResult`` a record file holds (candidates not recorded yet are left out)."""
    from ..contracts.limits import Limits

    header, *rest = records if records is not None else read_record(path)
    candidates = {}
    for line in rest:
        if line["record"] == "candidate":
            record = checked_as(line, CandidateLine, f"a candidate line of a run record ({path})")
            candidate = CandidateResult.from_record(record)
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
