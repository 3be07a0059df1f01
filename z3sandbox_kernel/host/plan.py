"""Turning ``run()``'s arguments into a validated plan.  Bad input fails here, before any process."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import get_args

from ..limits import Limits
from ..protocol import KNOWN_LAYERS, Language

LANGUAGES: tuple[Language, ...] = get_args(Language)
MAX_CANDIDATES = 100_000


def _grace(default: float, help_text: str) -> float:
    return field(default=default, metadata={"help": help_text})


@dataclass(frozen=True)
class Graces:
    """How long the host waits on a zygote before it acts on its own, in seconds.  The defaults
    are generous for a loaded machine (a zygote may lag; it never hangs); tests pass short ones.
    The Jupyter side configures them as ``Z3Sandbox.<name>`` traits (jupyter/config.py)."""

    watchdog_grace_s: float = _grace(
        10.0, "past a candidate's wall limit (twice it with verification) with no result, the "
              "sandbox process is taken for wedged, killed and restarted")
    cancel_grace_s: float = _grace(
        10.0, "a cancel the sandbox process does not confirm within this ends the candidates in "
              "the host, and the process is taken for wedged")
    shutdown_grace_s: float = _grace(
        2.0, "a sandbox process asked to shut down exits within this, or is killed")
    exit_grace_s: float = _grace(
        2.0, "a sandbox process that closed its pipe exits on its own within this, or is killed")


@dataclass(frozen=True)
class RunPlan:
    scripts: tuple[str, ...]  # one per candidate
    random_seeds: tuple[int | None, ...]
    language: Language
    limits: Limits
    seed: bytes | None
    race: bool
    jobs: int
    cores: bool
    verify: bool
    require: tuple[str, ...]
    models: int = 1  # up to this many distinct models per sat candidate
    plain: bool = False  # as `python file.py`: no prelude, no `s`, no check on the script's behalf


def as_seed(seed: object) -> bytes | None:
    """bytes, bytearray or memoryview; anything else is refused (a str is not an input packet)."""
    if seed is None:
        return None
    if isinstance(seed, (bytes, bytearray, memoryview)):
        return bytes(seed)
    raise ValueError(f"seed must be bytes, bytearray or memoryview, not {type(seed).__name__}")


def _language(language: str) -> Language:
    for known in LANGUAGES:
        if language == known:
            return known
    raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")


def _scripts(
    scripts: object, k: int | None, limits: Limits
) -> tuple[tuple[str, ...], tuple[int | None, ...]]:
    if isinstance(scripts, str):
        listed: list[object] = [scripts]
    elif isinstance(scripts, Sequence) and not isinstance(scripts, (bytes, bytearray)):
        listed = list(scripts)
    else:
        raise ValueError(f"scripts must be a str or a list of str, not {type(scripts).__name__}")
    if not listed:
        raise ValueError("no candidates: the list of scripts is empty")
    for index, script in enumerate(listed):
        if not isinstance(script, str):
            raise ValueError(f"candidate {index} is a {type(script).__name__}, not a str")
        if not script.strip():
            raise ValueError(f"candidate {index} is empty")
        size = len(script.encode("utf-8", "surrogatepass"))
        if size > limits.script_kb * 1024:
            raise ValueError(
                f"candidate {index} is {size} bytes; the limit is {limits.script_kb} KB (script_kb)")
    texts = tuple(str(s) for s in listed)
    if k is None:
        return texts, (None,) * len(texts)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive whole number, not {k!r}")
    if len(texts) != 1:
        raise ValueError("k runs one script with K random seeds; pass a single script with k")
    if k > MAX_CANDIDATES:
        raise ValueError(f"k={k} is more than {MAX_CANDIDATES} candidates")
    return texts * k, tuple(range(k))


# Candidates in flight per CPU by default: at one per CPU a core idles while its candidate's tree
# is forked, torn down and verified; K=16 on 2 cores ran 12% faster at 3-6 in flight, with the same
# CPU per candidate (bench/PROFILE.md, issue 24).
JOBS_PER_CPU = 2


def make_plan(
    scripts: object,
    *,
    k: int | None = None,
    language: str = "python",
    limits: Limits | None = None,
    seed: object = None,
    race: bool = False,
    jobs: int | None = None,
    cores: bool = False,
    verify: bool = True,
    require: Iterable[str] = (),
    models: int = 1,
    plain: bool = False,
) -> RunPlan:
    limits = limits if limits is not None else Limits()
    if not isinstance(limits, Limits):
        raise ValueError(f"limits must be a Limits, not {type(limits).__name__}")
    known_language = _language(language)
    texts, seeds = _scripts(scripts, k, limits)
    if len(texts) > MAX_CANDIDATES:
        raise ValueError(f"{len(texts)} candidates is more than {MAX_CANDIDATES}")
    seed_bytes = as_seed(seed)
    if seed_bytes is not None and len(seed_bytes) > limits.payload_max_bytes:
        raise ValueError(
            f"the seed is {len(seed_bytes)} bytes, over payload_max_bytes={limits.payload_max_bytes}")
    if jobs is None:
        jobs = JOBS_PER_CPU * (os.cpu_count() or 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive whole number, not {jobs!r}")
    if isinstance(models, bool) or not isinstance(models, int) or models < 1:
        raise ValueError(f"models must be a positive whole number, not {models!r}")
    return RunPlan(texts, seeds, known_language, limits, seed_bytes, bool(race), jobs, bool(cores),
                   bool(verify), required_layers(require), models, bool(plain))


def required_layers(require: object) -> tuple[str, ...]:
    """``require`` as sorted layer names: one name (a str) or an iterable of names, each a layer an
    isolation report names; a ValueError (with a did-you-mean) otherwise."""
    if isinstance(require, str):
        require = (require,)
    if not isinstance(require, Iterable):
        raise ValueError(f"require must be a layer name or a set of them, not {type(require).__name__}")
    names = list(require)
    for name in names:
        if not isinstance(name, str):
            raise ValueError(f"require holds layer names (str), not {type(name).__name__}")
        if name not in KNOWN_LAYERS:
            close = difflib.get_close_matches(name, sorted(KNOWN_LAYERS), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"require: unknown layer {name!r}{hint}; the layers are "
                             f"{', '.join(sorted(KNOWN_LAYERS))}")
    return tuple(sorted(set(names)))
