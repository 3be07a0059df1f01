"""The one model of run options (as ``limits.LIMIT_FIELDS`` is for limits) and of kill reasons.

``RUN_OPTIONS`` names every option that changes how a run goes: the keyword of ``Sandbox.run``
(or of the magic alone), its flag, its default, its help, and where it exists -- the magic, the
``Z3Sandbox`` traitlets config and the CLI all build their options from it, and the README's
options table is generated from it (tools/sync_docs.py; tests/test_docs.py checks it).
``KILL_REASONS`` lists what can end a candidate early (``CandidateResult.kill``), for the README
and the renderers.  Imported by the host side only; it imports nothing from Jupyter.
"""

from __future__ import annotations

import argparse
import difflib
import re
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["switch", "negated", "count", "choice"]
Place = Literal["magic", "config", "cli"]
_LIMIT_ERROR = re.compile(r"^(\w+)=(\S+) is not allowed: ")


@dataclass(frozen=True)
class RunOption:
    """One run option.  ``kind``: ``switch`` (a flag that turns it on), ``negated`` (on by
    default; the flag turns it off, e.g. ``--no-verify``), ``count`` (a whole number >= 1, or
    None), ``choice`` (one of ``choices``, or None)."""

    name: str
    flag: str
    kind: Kind
    default: Any
    help: str
    places: tuple[Place, ...] = ("magic", "config", "cli")
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    flag_help: str | None = None  # what the flag does, where it is not what the option does

    def default_text(self) -> str:
        """The default as the docs say it."""
        if self.default is None:
            return {"jobs": "two per CPU", "isolation": "the best available"}.get(self.name, "none")
        if isinstance(self.default, bool):
            return "on" if self.default else "off"
        return str(self.default)


RUN_OPTIONS: tuple[RunOption, ...] = (
    RunOption("k", "-k", "count", None, "run the one script K times with random seeds 0..K-1",
              places=("magic", "cli"), metavar="K"),
    RunOption("race", "--race", "switch", False,
              "stop the other candidates once one is decisive (sat or unsat): the first wins, "
              "hostile or not", places=("magic", "cli")),
    RunOption("jobs", "--jobs", "count", None, "candidates run at once", metavar="N"),
    RunOption("smt2", "--smt2", "switch", False,
              "the scripts are SMT-LIB 2, not Z3Py (the CLI also takes *.smt2 files as SMT-LIB)",
              places=("magic", "cli")),
    RunOption("cores", "--cores", "switch", False,
              "ask for unsat cores (the script lines of the tracked assertions)"),
    RunOption("models", "--models", "count", 1,
              "up to N distinct models per sat candidate (blocking clauses after the script; each "
              "verified like the first)", metavar="N"),
    RunOption("verify", "--no-verify", "negated", True,
              "check every sat model against the assertions in a fresh process",
              flag_help="do not check sat models in a fresh process"),
    RunOption("isolation", "--isolation", "choice", None,
              "'kernel' (namespaces, Landlock, seccomp) or 'process' (rlimits only)",
              choices=("kernel", "process")),
    RunOption("quiet", "--quiet", "switch", False,
              "no live table or progress line; only the final result"),
)
RUN_OPTION_NAMES = tuple(option.name for option in RUN_OPTIONS)


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


def argparse_specs(place: Place) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """``(flags, keywords)`` for ``add_argument`` (or IPython's ``@argument``), one per option of
    ``place``.  Every default is None, so that "not given" can fall back to the config."""
    specs: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    for option in options_for(place):
        source = f"Z3Sandbox.{option.name}; " if place == "magic" and "config" in option.places else ""
        keywords: dict[str, Any] = {
            "dest": option.name, "default": None,
            "help": f"{option.flag_help or option.help} ({source}default {option.default_text()})",
        }
        if option.kind == "switch":
            keywords["action"] = "store_true"
        elif option.kind == "negated":
            keywords["action"] = "store_false"
        elif option.kind == "count":
            keywords.update(type=positive_int, metavar=option.metavar)
        else:
            keywords["choices"] = option.choices
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
    match = _LIMIT_ERROR.match(message)
    from .limits import LIMIT_FIELDS

    flags = {spec.name: spec.metadata["flag"] for spec in LIMIT_FIELDS}
    if match is None or match.group(1) not in flags:
        return message
    return f"{flags[match.group(1)]} {match.group(2)}: not allowed: {message[match.end():]}"


def limit_specs(place: Place) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """``(flags, keywords)`` for ``add_argument``, one per limit (``limits.LIMIT_FIELDS``): flag,
    unit, type and help from the limits model; every default is None (the config's or the model's
    applies)."""
    from .limits import DEFAULT_LIMITS, LIMIT_FIELDS
    from .presentation.phrases import number

    specs: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    for spec in LIMIT_FIELDS:
        unit = spec.metadata["unit"]
        default = number(getattr(DEFAULT_LIMITS, spec.name)) + (f" {unit}" if unit else "")
        source = f"Z3Sandbox.{spec.name}, " if place == "magic" else ""
        specs.append(((spec.metadata["flag"],), {
            "dest": spec.name, "type": int if spec.type in ("int", int) else float, "default": None,
            "metavar": (unit or "N").upper(), "help": f"{spec.metadata['help']} ({source}default {default})",
        }))
    return specs


def resolve(given: Any, configured: Any = None) -> dict[str, Any]:
    """Each option's value: as given (an argparse namespace), else the config's, else the default."""
    values = {}
    for option in RUN_OPTIONS:
        value = getattr(given, option.name, None)
        if value is None and configured is not None:
            value = getattr(configured, option.name, None)
        values[option.name] = option.default if value is None else value
    return values


# What ended a candidate early: ``CandidateResult.kill``.  None: it ended by itself.
KILL_REASONS: dict[str, str] = {
    "solver": "the solver's own timeout (--timeout) stopped a check()",
    "wall": "the wall-clock limit (--wall): the sandbox killed it at the deadline",
    "cpu": "the CPU-time limit (--cpu): SIGXCPU, then SIGKILL at the hard limit",
    "memory": "the address-space limit (--memory) made an allocation fail",
    "output": "stdout and stderr passed their hard cap (--output-max)",
    "file_size": "a file passed the file-size limit (--file-size): SIGXFSZ",
    "disk": "scratch was full (--disk, its files and folders): a write failed with ENOSPC",
    "seccomp": "killed by seccomp (SIGSYS): a system call of another ABI (a refused call of its own "
               "ABI fails with EPERM instead, and the verdict is blocked with no kill)",
    "report": "its report broke the protocol (too big, malformed): the sandbox stopped reading",
    "race": "another candidate was decisive first (--race)",
    "cancel": "Sandbox.cancel() or the end of the run",
    "interrupt": "Jupyter's Interrupt (or Ctrl-C)",
    "died": "the zygote died under it (shown as internal_error; the run's notes say why)",
}


def options_table() -> str:
    """The README's run options table (markdown)."""
    rows = ["| option | magic / CLI flag | `%config Z3Sandbox` | default | meaning |",
            "|---|---|---|---|---|"]
    for option in RUN_OPTIONS:
        where = "/".join(p for p in ("magic", "cli") if p in option.places)
        config = f"`Z3Sandbox.{option.name}`" if "config" in option.places else "—"
        rows.append(f"| `{option.name}` | `{option.flag}` ({where}) | {config} | "
                    f"{option.default_text()} | {option.help} |")
    return "\n".join(rows)


def kills_table() -> str:
    """The README's kill reasons table (markdown)."""
    rows = ["| `kill` | what ended the candidate |", "|---|---|"]
    rows += [f"| `{name}` | {text} |" for name, text in KILL_REASONS.items()]
    return "\n".join(rows)
