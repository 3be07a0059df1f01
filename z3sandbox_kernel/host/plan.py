"""A run's ``RunOptions`` checked against its scripts: the plan the scheduler follows.  Bad input
fails here (or in ``RunOptions`` itself), before any process."""

from __future__ import annotations

import difflib
import importlib.util
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..contracts.limits import Limits
from ..contracts.options import RunOptions
from ..protocol.verdicts import Verdict

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
    """A run's options checked against its scripts, spread over its candidates."""

    scripts: tuple[str, ...]  # one per candidate
    random_seeds: tuple[int | None, ...]
    options: RunOptions  # as asked, with the Sandbox's own required layers
    jobs: int  # candidates in flight: as asked, else the Sandbox's, else JOBS_PER_CPU per CPU
    labels: tuple[str | None, ...] = ()  # per candidate, or () when none were given
    expected: tuple[str | None, ...] = ()  # the verdict expected of each candidate, or ()


def _per_candidate(values: tuple[object, ...] | None, what: str, scripts: int, seeds: int) -> list[object]:
    """``values`` (one per script, or one for all) spread over the candidates: K seeds of one
    script share its value; fewer than the scripts leave the rest None."""
    if values is None:
        return []
    listed = list(values)
    if len(listed) > max(scripts, 1):
        raise ValueError(f"{len(listed)} {what} for {scripts} script{'s' if scripts != 1 else ''}: "
                         "give one per script, or one for all")
    if len(listed) == 1:
        return listed * seeds
    return [listed[i] if i < len(listed) else None for i in range(seeds)]


def checked_labels(labels: tuple[object, ...] | None, scripts: int,
                   candidates: int) -> tuple[str | None, ...]:
    """Per candidate, its label: a str of at most ``MAX_LABEL_CHARS`` characters, or None."""
    spread: list[str | None] = []
    for index, label in enumerate(_per_candidate(labels, "labels", scripts, candidates)):
        if label is not None and not isinstance(label, str):
            raise ValueError(f"label {index} is a {type(label).__name__}, not a str")
        if label is not None and len(label) > MAX_LABEL_CHARS:
            raise ValueError(f"label {index} is {len(label)} characters; a label has at most "
                             f"{MAX_LABEL_CHARS}")
        spread.append(label)
    return tuple(spread)


def checked_expected(expected: tuple[object, ...] | None, scripts: int,
                     candidates: int) -> tuple[str | None, ...]:
    """Per candidate, the verdict expected of it (a ``Verdict`` or its name), or None."""
    names = [verdict.value for verdict in Verdict]
    spread: list[str | None] = []
    for value in _per_candidate(expected, "expected verdicts", scripts, candidates):
        name = value.value if isinstance(value, Verdict) else value
        if name is not None and name not in names:
            close = difflib.get_close_matches(str(name), names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"expected: {name!r} is not a verdict{hint}; the verdicts are "
                             f"{', '.join(names)}")
        spread.append(None if name is None else str(name))
    return tuple(spread)


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
    if len(texts) != 1:
        raise ValueError("k runs one script with K random seeds; pass a single script with k")
    if k > MAX_CANDIDATES:
        raise ValueError(f"k={k} is more than {MAX_CANDIDATES} candidates")
    return texts * k, tuple(range(k))


# Candidates in flight per CPU by default: at one per CPU a core idles while its candidate's tree
# is forked, torn down and verified; K=16 on 2 cores ran 12% faster at 3-6 in flight, with the same
# CPU per candidate (bench/PROFILE.md).
JOBS_PER_CPU = 2


def make_plan(scripts: object, options: RunOptions | None = None, jobs: int | None = None) -> RunPlan:
    """The plan of ``scripts`` run with ``options``; ``jobs``: the default when the options name
    none (the Sandbox's, or a cluster's), else ``JOBS_PER_CPU`` per CPU here."""
    options = options if options is not None else RunOptions()
    texts, seeds = _scripts(scripts, options.k, options.limits)
    if len(texts) > MAX_CANDIDATES:
        raise ValueError(f"{len(texts)} candidates is more than {MAX_CANDIDATES}")
    in_flight = options.jobs or jobs or JOBS_PER_CPU * (os.cpu_count() or 1)
    given = 1 if options.k is not None else len(texts)
    if options.cross_check is not None and not _installed(options.cross_check):
        raise ValueError(f"cross_check={options.cross_check!r} needs {options.cross_check}, which is not "
                         f"installed: pip install 'z3sandbox-kernel[{options.cross_check}]'")
    return RunPlan(texts, seeds, options, in_flight, checked_labels(options.labels, given, len(texts)),
                   checked_expected(options.expected, given, len(texts)))


def _installed(module: str) -> bool:
    """Importable here (the verifier imports it: the zygote runs this Python); a module set to
    None in ``sys.modules`` (blocked) counts as absent."""
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
