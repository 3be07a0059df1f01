"""Turning ``run()``'s arguments into a validated plan.  Bad input fails here, before any process."""

from __future__ import annotations

import difflib
import importlib.util
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import get_args

from ..limits import Limits
from ..protocol import KNOWN_LAYERS, Language
from ..verdicts import Verdict

LANGUAGES: tuple[Language, ...] = get_args(Language)
MAX_CANDIDATES = 100_000
# A label names a candidate in a table, a record and an agent's context: a name, not a document.
MAX_LABEL_CHARS = 200


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
    labels: tuple[str | None, ...] = ()  # per candidate, or () when none were given
    expected: tuple[str | None, ...] = ()  # the verdict expected of each candidate, or ()
    cross_check: str | None = None  # "cvc5": the verifier checks each answer in cvc5 too
    plain: bool = False  # as `python file.py`: no prelude, no `s`, no check on the script's behalf


def as_seed(seed: object) -> bytes | None:
    """bytes, bytearray or memoryview; anything else is refused (a str is not an input packet)."""
    if seed is None:
        return None
    if isinstance(seed, (bytes, bytearray, memoryview)):
        return bytes(seed)
    raise ValueError(f"seed must be bytes, bytearray or memoryview, not {type(seed).__name__}")


def _per_candidate(values: object, what: str, scripts: int, seeds: int) -> list[object]:
    """``values`` (one per script, or one for all) spread over the candidates: K seeds of one
    script share its value; fewer than the scripts leave the rest None."""
    if values is None:
        return []
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{what} must be a list (one per script), not {type(values).__name__}")
    listed = list(values)
    if len(listed) > max(scripts, 1):
        raise ValueError(f"{len(listed)} {what} for {scripts} script{'s' if scripts != 1 else ''}: "
                         "give one per script, or one for all")
    if len(listed) == 1:
        return listed * seeds
    return [listed[i] if i < len(listed) else None for i in range(seeds)]


def checked_labels(labels: object, scripts: int, candidates: int) -> tuple[str | None, ...]:
    """Per candidate, its label: a str of at most ``MAX_LABEL_CHARS`` characters, or None."""
    spread = _per_candidate(labels, "labels", scripts, candidates)
    for index, label in enumerate(spread):
        if label is not None and not isinstance(label, str):
            raise ValueError(f"label {index} is a {type(label).__name__}, not a str")
        if label is not None and len(label) > MAX_LABEL_CHARS:
            raise ValueError(f"label {index} is {len(label)} characters; a label has at most "
                             f"{MAX_LABEL_CHARS}")
    return tuple(spread)  # type: ignore[arg-type]  # checked above


def checked_expected(expected: object, scripts: int, candidates: int) -> tuple[str | None, ...]:
    """Per candidate, the verdict expected of it (a ``Verdict`` or its name), or None."""
    names = [verdict.value for verdict in Verdict]
    spread = []
    for value in _per_candidate(expected, "expected verdicts", scripts, candidates):
        name = value.value if isinstance(value, Verdict) else value
        if name is not None and name not in names:
            close = difflib.get_close_matches(str(name), names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"expected: {name!r} is not a verdict{hint}; the verdicts are "
                             f"{', '.join(names)}")
        spread.append(name)
    return tuple(spread)


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
# CPU per candidate (bench/PROFILE.md).
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
    labels: object = None,
    expected: object = None,
    cross_check: str | None = None,
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
    given = 1 if k is not None else len(texts)
    return RunPlan(texts, seeds, known_language, limits, seed_bytes, bool(race), jobs, bool(cores),
                   bool(verify), required_layers(require), models,
                   checked_labels(labels, given, len(texts)), checked_expected(expected, given, len(texts)),
                   _cross_check(cross_check), bool(plain))


CROSS_CHECKERS = ("cvc5",)


def _cross_check(solver: object) -> str | None:
    """None, or a second solver that is installed here (the verifier imports it: the zygote runs
    this Python): a ValueError before any process starts otherwise."""
    if solver is None:
        return None
    if solver not in CROSS_CHECKERS:
        raise ValueError(f"cross_check must be one of {', '.join(CROSS_CHECKERS)} or None, not {solver!r}")
    if not _installed(str(solver)):
        raise ValueError(f"cross_check={solver!r} needs {solver}, which is not installed: "
                         f"pip install 'z3sandbox-kernel[{solver}]'")
    return str(solver)


def _installed(module: str) -> bool:
    """Importable here; a module set to None in ``sys.modules`` (blocked) counts as absent."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


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
