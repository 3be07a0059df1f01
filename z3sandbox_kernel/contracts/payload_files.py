"""Payloads out of a run into files: a folder of them (``RunResult.save_payloads``) and an AFL++
sync folder (``%%z3sandbox --afl-sync DIR``).

Every file is written whole or not at all, with no link followed and never over a file that is
there (``hostfiles``): a fuzzer that scans the folder never reads half a payload, and a link planted
in a shared folder sends no byte elsewhere.  A payload is written once per folder: its SHA-256 is in
its name, and a name with the same hash already there means the same bytes (identical models are
common among K candidates).

AFL++ reads other fuzzers' findings from ``SYNC_DIR/<name>/queue/id:NNNNNN,...`` (``afl-fuzz -o
SYNC_DIR``: it syncs from every folder under the output folder); ids must grow, as AFL++ remembers
the last id it took from each fuzzer.  Host side only.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .hostfiles import Folder

AFL_FUZZER_NAME = "z3sandbox"  # our folder in the sync folder, as afl-fuzz -S NAME would be
_AFL_ID = re.compile(r"^id:(\d{6})")
_HASH = re.compile(r"sha256:([0-9a-f]{16})")


def digest(payload: bytes) -> str:
    """The first 16 hex digits of the payload's SHA-256: its identity in a file name."""
    return hashlib.sha256(payload).hexdigest()[:16]


def _hashes_in(folder: Folder) -> set[str]:
    return {match.group(1) for entry in folder.names() if (match := _HASH.search(entry))}


def file_name(name: str, payload: bytes) -> str:
    """``payload-NAME-sha256:HASH.bin``: the name of its file, safe characters only."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "payload"
    return f"payload-{safe}-sha256:{digest(payload)}.bin"


def run_files(candidates: Iterable[Any]) -> list[tuple[str, int, str, bytes]]:
    """``(file name, candidate index, payload name, payload)`` of each distinct payload of a run's
    ``candidates`` (``CandidateResult.named_payloads``), in order: ``RunResult.payload_files``."""
    files: dict[str, tuple[str, int, str, bytes]] = {}
    for candidate in candidates:
        for name, payload in candidate.named_payloads():
            label = "-".join(filter(None, (candidate.label or f"candidate-{candidate.index}", name)))
            files.setdefault(digest(payload), (file_name(label, payload), candidate.index, name, payload))
    return list(files.values())


def save_payloads(payloads: Iterable[tuple[str, bytes]], folder: str | os.PathLike[str]) -> list[Path]:
    """Write each ``(file name, payload)`` (``file_name``) into ``folder`` unless a file of the
    same hash is there; returns the files written (the folder is created if need be; a folder
    that is a link is refused, ``hostfiles.LinkedTarget``)."""
    written = []
    with Folder.open(folder) as target:
        seen = _hashes_in(target)
        for name, payload in payloads:
            key = digest(payload)
            if key in seen:
                continue
            seen.add(key)
            path = target.write_new(name, payload)
            if path is not None:  # None: a file of that name is there, left as it is
                written.append(path)
    return written


def afl_queue(sync_dir: str | os.PathLike[str], fuzzer: str = AFL_FUZZER_NAME) -> Folder:
    """``SYNC_DIR/z3sandbox/queue``, open, created if need be (no part of it a link)."""
    with Folder.open(sync_dir) as sync, sync.folder(fuzzer) as ours:
        return ours.folder("queue")


def afl_sync(payloads: Iterable[bytes], sync_dir: str | os.PathLike[str],
             fuzzer: str = AFL_FUZZER_NAME) -> list[Path]:
    """Write each new payload into ``afl_queue(sync_dir)`` as ``id:NNNNNN,sha256:HASH`` (the next
    id after the highest there); a payload already there (same hash) is skipped."""
    written = []
    with afl_queue(sync_dir, fuzzer) as queue:
        names = queue.names()
        seen = _hashes_in(queue)
        ids = [int(match.group(1)) for entry in names if (match := _AFL_ID.match(entry))]
        next_id = max(ids, default=-1) + 1
        for payload in payloads:
            key = digest(payload)
            if key in seen:
                continue
            seen.add(key)
            path = None
            while path is None:  # a name taken meanwhile (another writer): the next id
                path = queue.write_new(f"id:{next_id:06d},sha256:{key}", payload)
                next_id += 1
            written.append(path)
    return written
