"""The one model of what a run is asked (``RunOptions``), as ``limits.Limits`` is of its limits.

``RunOptions`` holds every option of a run besides its scripts: each field's default and help, and,
for the options the faces give a flag, the flag, its kind and where it exists (the magic, the
``Z3Sandbox`` traitlets config, the CLI), all in the field's metadata.  ``run()``, ``Sandbox.run``,
the magic, the CLI and the MCP tool each build one; ``RUN_OPTIONS`` (the flagged fields, and the
faces' own ``quiet``) is what the magic, the config and the CLI make their options from, and the
docs' options table is generated from it (tools/sync_docs.py; tests/test_docs.py checks it).
Imported by the host side only; it imports nothing from Jupyter.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, get_args

from ..protocol import KNOWN_LAYERS, Language
from ..protocol.roles import Level
from ..protocol.verdicts import Verdict
from .limits import DEFAULT_LIMITS, Limits

Kind = Literal["switch", "negated", "count", "choice", "verdicts"]
Place = Literal["magic", "config", "cli"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
ISOLATION_LEVELS = tuple(level.value for level in Level)
CROSS_CHECKERS = ("cvc5",)
_LIMIT_ERROR = re.compile(r"^(\w+)=(\S+) is not allowed: ")


class ArgumentKeywords(TypedDict, total=False):
    """The keywords of ``add_argument`` an option or a limit passes."""

    dest: str
    default: None
    help: str
    action: str
    const: object
    type: Callable[[str], object]
    choices: tuple[str, ...]
    metavar: str | None


def _about(help_text: str, **flag: object) -> dict[str, object]:
    """A ``RunOptions`` field's metadata: its help and, for an option the faces give a flag, how
    (``flag``, ``kind``, ``places``, ``choices``, ``metavar``, ``flag_help``, ``const``: the
    ``RunOption`` fields)."""
    return {"help": help_text, **flag}


@dataclass(frozen=True)
class RepairRound:
    """The repair loop (``repair()``) a run is a round of: the loop's id and the round's number."""

    id: str
    round: int


@dataclass(frozen=True)
class RunOptions:
    """What a run is asked, besides its scripts.  ``run(scripts, options)``, or ``run()``'s
    keywords, which build one: ``run(scripts, k=8, race=True)``.  Invalid values raise
    ValueError here, before any process starts; those that depend on the scripts (how many
    labels, ``k`` with a list) are checked when the run is planned."""

    k: int | None = field(default=None, metadata=_about(
        "run the one script K times with random seeds 0..K-1",
        flag="-k", kind="count", places=("magic", "cli"), metavar="K"))
    language: Language = field(default="python", metadata=_about(
        "the scripts' language: python (Z3Py) or smt2 (SMT-LIB 2 text)",
        flag="--smt2", kind="switch", const="smt2", places=("magic", "cli"),
        flag_help="the scripts are SMT-LIB 2, not Z3Py (the CLI also takes *.smt2 files as SMT-LIB)"))
    limits: Limits = field(default=DEFAULT_LIMITS, metadata=_about(
        "each candidate's limits (None: the defaults)"))
    seed: bytes | None = field(default=None, metadata=_about(
        "the input that byte_N models are overlaid on (bytes-like)"))
    race: bool = field(default=False, metadata=_about(
        "stop the other candidates once one is decisive (sat or unsat): the first wins, "
        "hostile or not", flag="--race", kind="switch", places=("magic", "cli")))
    jobs: int | None = field(default=None, metadata=_about(
        "candidates run at once", flag="--jobs", kind="count", metavar="N"))
    cores: bool = field(default=False, metadata=_about(
        "ask for unsat cores (the script lines of the tracked assertions)",
        flag="--cores", kind="switch"))
    plain: bool = field(default=False, metadata=_about(
        "run each script as `python file.py` would: no `from z3 import *` done for it, no `s`, "
        "no check on its behalf", flag="--plain", kind="switch"))
    models: int = field(default=1, metadata=_about(
        "up to N distinct models per sat candidate (blocking clauses after the script; each "
        "verified like the first)", flag="--models", kind="count", metavar="N"))
    verify: bool = field(default=True, metadata=_about(
        "confirm every sat model, unsat, core and objective against the assertions in a "
        "verifier", flag="--no-verify", kind="negated",
        flag_help="do not confirm answers in a verifier"))
    cross_check: str | None = field(default=None, metadata=_about(
        "check each sat and unsat answer with a second solver too, in the verifier "
        "(needs the extra: pip install 'z3sandbox-kernel[cvc5]')",
        flag="--cross-check", kind="choice", choices=CROSS_CHECKERS, metavar="SOLVER"))
    isolation: str | None = field(default=None, metadata=_about(
        "'kernel' (namespaces, Landlock, seccomp) or 'process' (rlimits only)",
        flag="--isolation", kind="choice", choices=ISOLATION_LEVELS))
    require: tuple[str, ...] = field(default=(), metadata=_about(
        "isolation layers that must be active, or no candidate runs (one name or several)"))
    labels: tuple[str | None, ...] | None = field(default=None, metadata=_about(
        "a name per script (or one for all), in the result and the record"))
    expected: tuple[str | None, ...] | None = field(default=None, metadata=_about(
        "the verdict expected of each script (one for all, or one per script), kept in the "
        "run's record: load_runs shows it, diff_runs counts it",
        flag="--expected", kind="verdicts", places=("magic", "cli"), metavar="VERDICT[,...]"))
    record_dir: str | os.PathLike[str] | None = field(default=None, metadata=_about(
        "write the run's record to this folder (`<run_id>.jsonl`; load_runs reads it)"))
    record_scripts: bool = field(default=False, metadata=_about(
        "keep each script's text in the run's record (with a record folder)",
        flag="--record-scripts", kind="switch"))
    repair: RepairRound | None = field(default=None, metadata=_about(
        "the repair loop this run is a round of (repair() sets it), kept in the run's record"))

    def __post_init__(self) -> None:
        """Check each option on its own and hold it in its one form (a tuple, bytes, a bool)."""
        def hold(name: str, value: object) -> None:
            object.__setattr__(self, name, value)

        for name, value in (("k", self.k), ("jobs", self.jobs), ("models", self.models)):
            if value is None and name != "models":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive whole number, not {value!r}")
        if self.language not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {self.language!r}")
        limits = DEFAULT_LIMITS if self.limits is None else self.limits
        if not isinstance(limits, Limits):
            raise ValueError(f"limits must be a Limits, not {type(limits).__name__}")
        hold("limits", limits)
        hold("seed", as_seed(self.seed))
        if self.seed is not None and len(self.seed) > limits.payload_max_bytes:
            raise ValueError(
                f"the seed is {len(self.seed)} bytes, over payload_max_bytes={limits.payload_max_bytes}")
        if self.cross_check is not None and self.cross_check not in CROSS_CHECKERS:
            raise ValueError(f"cross_check must be one of {', '.join(CROSS_CHECKERS)} or None, "
                             f"not {self.cross_check!r}")
        if self.isolation not in (None, *ISOLATION_LEVELS):
            raise ValueError(f"isolation must be 'kernel' or 'process', not {self.isolation!r}")
        hold("require", required_layers(self.require))
        hold("labels", _listed(self.labels, "labels"))
        # one verdict (a str) is the one expected of every script, as a one-item list is
        hold("expected", (self.expected,) if isinstance(self.expected, str) else
             _listed(self.expected, "expected verdicts"))
        for name in ("race", "cores", "plain", "verify", "record_scripts"):
            hold(name, bool(getattr(self, name)))

    @classmethod
    def of(cls, options: RunOptions | None = None, **changes: object) -> RunOptions:
        """``options`` (or the defaults) with ``changes``, the keywords of ``run()``; an unknown
        keyword is a TypeError that says which was meant."""
        unknown = [name for name in changes if name not in RUN_OPTION_FIELDS]
        if unknown:
            close = difflib.get_close_matches(unknown[0], RUN_OPTION_FIELDS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise TypeError(f"unknown run option {unknown[0]!r}{hint}; the options are "
                            f"{', '.join(RUN_OPTION_FIELDS)}")
        base = options if options is not None else cls()
        if not isinstance(base, RunOptions):
            raise ValueError(f"options must be a RunOptions, not {type(base).__name__}")
        return _replace(base, **changes) if changes else base

    def replace(self, **changes: object) -> RunOptions:
        """A copy with some options changed (None is a value here: ``k=None`` runs no seeds)."""
        return RunOptions.of(self, **changes)


# RunOptions made or copied from keywords that are the user's (run()'s, a magic's flags): each
# value is checked as the options are made (``RunOptions.__post_init__``), not by mypy.
_replace: Callable[..., RunOptions] = dataclasses.replace
_make: Callable[..., RunOptions] = RunOptions

RUN_OPTION_FIELDS: tuple[str, ...] = tuple(spec.name for spec in dataclasses.fields(RunOptions))


def as_seed(seed: object) -> bytes | None:
    """bytes, bytearray or memoryview; anything else is refused (a str is not an input packet)."""
    if seed is None:
        return None
    if isinstance(seed, (bytes, bytearray, memoryview)):
        return bytes(seed)
    raise ValueError(f"seed must be bytes, bytearray or memoryview, not {type(seed).__name__}")


def _listed(values: object, what: str) -> tuple[Any, ...] | None:
    """A per-script list as a tuple (its items are checked against the scripts, host/plan.py)."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{what} must be a list (one per script), not {type(values).__name__}")
    return tuple(values)


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


# ------------------------------------------------------------------------- the faces' options

@dataclass(frozen=True)
class RunOption:
    """One option as the faces show it: a flagged ``RunOptions`` field, or one of the faces' own
    (``quiet``).  ``kind``: ``switch`` (a flag that sets it to ``const``), ``negated`` (on by
    default; the flag turns it off, e.g. ``--no-verify``), ``count`` (a whole number >= 1, or
    None), ``choice`` (one of ``choices``, or None), ``verdicts`` (verdict names, comma-separated
    on a command line, or None)."""

    name: str
    flag: str
    kind: Kind
    default: Any
    help: str
    places: tuple[Place, ...] = ("magic", "config", "cli")
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    flag_help: str | None = None  # what the flag does, where it is not what the option does
    const: Any = True  # what a switch sets

    def default_text(self) -> str:
        """The default as the docs say it."""
        if self.default is None:
            return {"jobs": "two per CPU", "isolation": "the best available"}.get(self.name, "none")
        if isinstance(self.default, bool):
            return "on" if self.default else "off"
        return str(self.default)


def _flagged(spec: dataclasses.Field[Any]) -> RunOption:
    return RunOption(spec.name, default=spec.default, **spec.metadata)


# The options of how a run is shown, not of the run: the faces' own.
VIEW_OPTIONS: tuple[RunOption, ...] = (
    RunOption("quiet", "--quiet", "switch", False, "no live table or progress line; only the final result"),
)
RUN_OPTIONS: tuple[RunOption, ...] = tuple(
    _flagged(spec) for spec in dataclasses.fields(RunOptions) if "flag" in spec.metadata) + VIEW_OPTIONS


def options_for(place: Place) -> tuple[RunOption, ...]:
    return tuple(option for option in RUN_OPTIONS if place in option.places)


def positive_int(text: str) -> int:
    """argparse type of ``count`` options: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def verdict_list(text: str) -> list[str]:
    """argparse type of ``verdicts`` options: ``sat,unsat``, each a verdict's name."""
    names = [verdict.value for verdict in Verdict]
    listed = [word.strip() for word in text.split(",")]
    for word in listed:
        if word not in names:
            close = difflib.get_close_matches(word, names, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise argparse.ArgumentTypeError(f"{word!r} is not a verdict{hint}")
    return listed


def argparse_specs(place: Place) -> list[tuple[tuple[str, ...], ArgumentKeywords]]:
    """``(flags, keywords)`` for ``add_argument`` (or IPython's ``@argument``), one per option of
    ``place``.  Every default is None, so that "not given" can fall back to the config."""
    specs: list[tuple[tuple[str, ...], ArgumentKeywords]] = []
    for option in options_for(place):
        source = f"Z3Sandbox.{option.name}; " if place == "magic" and "config" in option.places else ""
        keywords: ArgumentKeywords = {
            "dest": option.name, "default": None,
            "help": f"{option.flag_help or option.help} ({source}default {option.default_text()})",
        }
        if option.kind == "switch":
            keywords["action"], keywords["const"] = "store_const", option.const
        elif option.kind == "negated":
            keywords["action"] = "store_false"
        elif option.kind == "count":
            keywords["type"], keywords["metavar"] = positive_int, option.metavar
        elif option.kind == "verdicts":
            keywords["type"], keywords["metavar"] = verdict_list, option.metavar
        else:
            keywords["choices"], keywords["metavar"] = option.choices, option.metavar
        specs.append(((option.flag,), keywords))
    return specs


def did_you_mean(message: str, flags: list[str]) -> str:
    """`` (did you mean --memory?)`` for each unknown option in an argparse message, or ''."""
    unknown = re.findall(r"--?[\w-]+", message.partition("unrecognized arguments:")[2])
    guesses = [close[0] for word in unknown
               if (close := difflib.get_close_matches(word, flags, n=1, cutoff=0.6))]
    return f" (did you mean {', '.join(guesses)}?)" if guesses else ""


def limit_error(message: str) -> str:
    """``memory_mb=1 is not allowed: ...`` as the user typed it: ``--memory 1: not allowed: ...``."""
    from .limits import LIMIT_FIELDS

    match = _LIMIT_ERROR.match(message)
    flags = {spec.name: spec.metadata["flag"] for spec in LIMIT_FIELDS}
    if match is None or match.group(1) not in flags:
        return message
    return f"{flags[match.group(1)]} {match.group(2)}: not allowed: {message[match.end():]}"


def limit_specs(place: Place) -> list[tuple[tuple[str, ...], ArgumentKeywords]]:
    """``(flags, keywords)`` for ``add_argument``, one per limit (``limits.LIMIT_FIELDS``): flag,
    unit, type and help from the limits model; every default is None (the config's or the model's
    applies)."""
    from .limits import LIMIT_FIELDS, number

    specs: list[tuple[tuple[str, ...], ArgumentKeywords]] = []
    for spec in LIMIT_FIELDS:
        unit = spec.metadata["unit"]
        default = number(getattr(DEFAULT_LIMITS, spec.name)) + (f" {unit}" if unit else "")
        source = f"Z3Sandbox.{spec.name}, " if place == "magic" else ""
        specs.append(((spec.metadata["flag"],), {
            "dest": spec.name, "type": int if spec.type in ("int", int) else float, "default": None,
            "metavar": (unit or "N").upper(), "help": f"{spec.metadata['help']} ({source}default {default})",
        }))
    return specs


def chosen(name: str, given: object, configured: object = None) -> object:
    """One option's value: as given (an argparse namespace), else the config's, else its default."""
    (option,) = [option for option in RUN_OPTIONS if option.name == name]
    value = getattr(given, name, None)
    if value is None and configured is not None:
        value = getattr(configured, name, None)
    return option.default if value is None else value


def resolve(given: object, configured: object = None, **fixed: object) -> RunOptions:
    """The run's options: each flagged one as given (an argparse namespace), else the config's,
    else its default; ``fixed``, the options the face sets itself (limits, seed, labels ...)."""
    flagged = {option.name: chosen(option.name, given, configured)
               for option in RUN_OPTIONS if option.name in RUN_OPTION_FIELDS}
    return _make(**(flagged | fixed))


def options_table() -> str:
    """The docs' run options table (markdown)."""
    rows = ["| option | magic / CLI flag | `%config Z3Sandbox` | default | meaning |",
            "|---|---|---|---|---|"]
    for option in RUN_OPTIONS:
        where = "/".join(p for p in ("magic", "cli") if p in option.places)
        config = f"`Z3Sandbox.{option.name}`" if "config" in option.places else "—"
        rows.append(f"| `{option.name}` | `{option.flag}` ({where}) | {config} | "
                    f"{option.default_text()} | {option.help} |")
    return "\n".join(rows)


def fields_table() -> str:
    """The docs' table of every ``RunOptions`` field (markdown)."""
    rows = ["| `RunOptions` field | default | flag | meaning |", "|---|---|---|---|"]
    for spec in dataclasses.fields(RunOptions):
        default = "the `Limits` defaults" if spec.name == "limits" else f"`{spec.default!r}`"
        flag = f"`{spec.metadata['flag']}`" if "flag" in spec.metadata else "—"
        rows.append(f"| `{spec.name}` | {default} | {flag} | {spec.metadata['help']} |")
    return "\n".join(rows)


def kills_table() -> str:
    """The docs' kill reasons table (markdown), from ``roles.Kill.description``."""
    from ..protocol.roles import KILL_DESCRIPTIONS

    rows = ["| `kill` | what ended the candidate |", "|---|---|"]
    rows += [f"| `{kill.value}` | {kill.description} |" for kill in KILL_DESCRIPTIONS]
    return "\n".join(rows)
