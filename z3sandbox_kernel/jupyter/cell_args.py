"""What one ``%%z3sandbox`` cell asks (steps 1-4 of magic.py): its options parsed, its scripts,
seed, cluster and limits read, and every script's size checked.  No process is started here: a
wrong option or input is a ``UsageError`` with one line saying what to change."""

from __future__ import annotations

import argparse
import dataclasses
import keyword
from pathlib import Path
from typing import TYPE_CHECKING, cast

from IPython.core.error import UsageError

from ..contracts.limits import LIMIT_FIELDS, Limits
from ..contracts.options import (
    RunOptions,
    argparse_specs,
    chosen,
    did_you_mean,
    limit_error,
    limit_specs,
    resolve,
)
from .scripts import Script, scripts_from, split_cell
from .typed_ipython import MagicParser, Method, argument, argument_group

if TYPE_CHECKING:
    from distributed import Client

    from .config import _Z3SandboxOptions as Config  # the class of the Z3Sandbox config


def run_options(func: Method) -> Method:
    """One option per run option of the magic, from ``options.RUN_OPTIONS``."""
    for flags, keywords in reversed(argparse_specs("magic")):
        func = argument(*flags, **keywords)(func)
    return argument_group("run options")(func)


def limit_options(func: Method) -> Method:
    """One option per limit, from ``LIMIT_FIELDS``; defaults come from the Z3Sandbox config."""
    for flags, keywords in reversed(limit_specs("magic")):
        func = argument(*flags, **keywords)(func)
    return argument_group("limits")(func)


@dataclasses.dataclass
class CellRequest:
    """A cell's run as asked: its scripts, the options they run with, whether to show a live
    view, the cluster (None: here), the AFL++ sync folder and the name the result is bound to."""

    scripts: list[Script]
    options: RunOptions
    quiet: bool
    client: Client | None
    afl_sync: str | None
    out: str


def read_cell(parser: MagicParser, line: str, cell: str | None, namespace: dict[str, object],
              config: Config) -> CellRequest:
    """Steps 1-4: the options on ``line``, the scripts (``cell``, or ``--candidates``), the seed,
    the cluster and the limits (defaults from ``config``), every script's size checked."""
    args = _parse(parser, line)
    scripts = _scripts(args, cell, namespace)
    seed = _seed(args, namespace)
    client = _client(args, namespace)
    limits = _limits(args, config)
    for index, script in enumerate(scripts):
        size = len(script.source.encode("utf-8", "surrogatepass"))
        if size > limits.script_kb * 1024:
            raise UsageError(
                f"candidate {index} is {size / 1024:.1f} KB, over the script size limit of "
                f"{limits.script_kb} KB (--script-size or Z3Sandbox.script_kb)"
            )
    options = resolve(args, config, limits=limits, seed=seed, require=tuple(config.require),
                      record_dir=config.record_dir or None)
    return CellRequest(scripts, options, bool(chosen("quiet", args, config)), client, args.afl_sync,
                       args.out)


def _read_variable(namespace: dict[str, object], name: str, option: str) -> object:
    if name not in namespace:
        raise UsageError(f"{option} {name}: no variable of that name in the namespace")
    return namespace[name]


def _parse(parser: MagicParser, line: str) -> argparse.Namespace:
    try:
        args = parser.parse_argstring(line)
    except UsageError as exc:
        # The help formatter writes reStructuredText ("::" before the usage block): drop it.
        usage = parser.format_usage().strip().removeprefix("::").strip()
        hint = "(%%z3sandbox? shows what each option does)"
        guess = did_you_mean(str(exc), [flag for action in parser._actions
                                        for flag in action.option_strings])
        raise UsageError(f"{exc}{guess}\n{usage}\n{hint}") from None
    if not args.out.isidentifier() or keyword.iskeyword(args.out):
        raise UsageError(f"--out {args.out}: not a valid Python name")
    return args


def _scripts(args: argparse.Namespace, cell: str | None, namespace: dict[str, object]) -> list[Script]:
    body = cell if cell is not None else ""
    if args.candidates is not None:
        if body.strip():
            raise UsageError(
                "give the scripts either in the cell body or with --candidates, not both"
            )
        value = _read_variable(namespace, args.candidates, "--candidates")
        return scripts_from(value, args.candidates)
    if cell is None:
        raise UsageError(
            "%z3sandbox needs --candidates VAR (a list of scripts); "
            "use %%z3sandbox to run a cell"
        )
    scripts = split_cell(body)
    if not scripts:
        raise UsageError("the cell is empty: write a script below %%z3sandbox, "
                         "or pass --candidates VAR")
    return scripts


def _seed(args: argparse.Namespace, namespace: dict[str, object]) -> bytes | None:
    if args.seed_file is not None:
        if args.seed is not None:
            raise UsageError("give the seed either with --seed VAR or with --seed-file PATH, not both")
        try:
            return Path(args.seed_file).expanduser().read_bytes()
        except OSError as exc:
            raise UsageError(f"--seed-file {args.seed_file}: {exc.strerror or exc}") from None
    if args.seed is None:
        return None
    value = _read_variable(namespace, args.seed, "--seed")
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise UsageError(
            f"--seed {args.seed}: expected bytes, bytearray or memoryview, "
            f"not {type(value).__name__}"
        )
    return bytes(value)


def _client(args: argparse.Namespace, namespace: dict[str, object]) -> Client | None:
    """--dask: a Client held in a variable, or a scheduler address (a name that is not a
    variable is taken as an address)."""
    if args.dask is None:
        return None
    target = namespace.get(args.dask, args.dask) if args.dask.isidentifier() else args.dask
    try:
        from ..host.distributed import resolve_client

        return cast("Client", resolve_client(target))
    except ImportError as exc:
        raise UsageError(f"--dask: {exc}") from None
    except (TypeError, OSError, ValueError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else repr(exc)
        raise UsageError(f"--dask {args.dask}: {first}") from None


def _limits(args: argparse.Namespace, config: Config) -> Limits:
    try:
        return config.limits(**{spec.name: getattr(args, spec.name) for spec in LIMIT_FIELDS})
    except ValueError as exc:
        raise UsageError(limit_error(str(exc))) from None
