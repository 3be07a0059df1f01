"""Payloads out of a run into files: a folder of them (``RunResult.save_payloads``) and an AFL++
sync folder (``%%z3sandbox --afl-sync DIR``).

Every file is written whole or not at all: its bytes go to a hidden temporary file in the same
folder, then ``os.replace`` gives it its name, so a fuzzer that scans the folder never reads half a
payload.  A payload is written once per folder: its SHA-256 is in its name, and a name with the
same hash already there means the same bytes (identical models are common among K candidates).

AFL++ reads other fuzzers' findings from ``SYNC_DIR/<name>/queue/id:NNNNNN,...`` (``afl-fuzz -o
SYNC_DIR``: it syncs from every folder under the output folder); ids must grow, as AFL++ remembers
the last id it took from each fuzzer.  Host side only.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

AFL_FUZZER_NAME = "z3sandbox"  # our folder in the sync folder, as afl-fuzz -S NAME would be
_AFL_ID = re.compile(r"^id:(\d{6})")
_HASH = re.compile(r"sha256:([0-9a-f]{16})")


def digest(payload: bytes) -> str:
    """The first 16 hex digits of the payload's SHA-256: its identity in a file name."""
    return hashlib.sha256(payload).hexdigest()[:16]


def write_atomically(folder: Path, name: str, payload: bytes) -> Path:
    """``folder/name`` holding ``payload``, written to a hidden temporary file first."""
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".z3sandbox-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
            stream.flush()
            os.fsync(stream.fileno())
        target = folder / name
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _hashes_in(folder: Path) -> set[str]:
    return {match.group(1) for entry in os.listdir(folder) if (match := _HASH.search(entry))}


def save_payloads(payloads: Iterable[tuple[str, bytes]], folder: str | os.PathLike[str]) -> list[Path]:
    """Write each ``(name, payload)`` as ``folder/payload-NAME-sha256:HASH.bin`` unless a file of
    the same hash is there; returns the files written (the folder is created if need be)."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    seen = _hashes_in(target)
    written = []
    for name, payload in payloads:
        key = digest(payload)
        if key in seen:
            continue
        seen.add(key)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "payload"
        written.append(write_atomically(target, f"payload-{safe}-sha256:{key}.bin", payload))
    return written


def afl_queue(sync_dir: str | os.PathLike[str], fuzzer: str = AFL_FUZZER_NAME) -> Path:
    """``SYNC_DIR/z3sandbox/queue``, created if need be."""
    queue = Path(sync_dir) / fuzzer / "queue"
    queue.mkdir(parents=True, exist_ok=True)
    return queue


def afl_sync(payloads: Iterable[bytes], sync_dir: str | os.PathLike[str],
             fuzzer: str = AFL_FUZZER_NAME) -> list[Path]:
    """Write each new payload into ``afl_queue(sync_dir)`` as ``id:NNNNNN,sha256:HASH`` (the next
    id after the highest there); a payload already there (same hash) is skipped."""
    queue = afl_queue(sync_dir, fuzzer)
    seen = _hashes_in(queue)
    ids = [int(match.group(1)) for entry in os.listdir(queue) if (match := _AFL_ID.match(entry))]
    next_id = max(ids, default=-1) + 1
    written = []
    for payload in payloads:
        key = digest(payload)
        if key in seen:
            continue
        seen.add(key)
        written.append(write_atomically(queue, f"id:{next_id:06d},sha256:{key}", payload))
        next_id += 1
    return written
