"""``z3sandbox`` / ``python -m z3sandbox_kernel``: run candidates from files, manage the kernelspec.

Exit status: 0 when the candidates ran (whatever their verdicts), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .limits import LIMIT_FIELDS, Limits
from .render import run_text
from .results import RunResult


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """One option per limit, its flag, help and default read from the limits model."""
    for spec in LIMIT_FIELDS:
        unit = spec.metadata["unit"]
        parser.add_argument(
            spec.metadata["flag"], dest=spec.name, type=float if spec.type in ("float", float) else int,
            metavar=unit.upper() or "N", default=None,
            help=f"{spec.metadata['help']} (default {spec.default}{(' ' + unit) if unit else ''})",
        )


def _add_run_command(subparsers: Any) -> None:
    run = subparsers.add_parser("run", help="run candidate scripts in the sandbox")
    run.add_argument("scripts", nargs="+", metavar="FILE",
                     help="candidate scripts (Z3Py, or SMT-LIB with --smt2)")
    run.add_argument("-k", type=int, default=None,
                     help="run the single FILE K times with random seeds 0..K-1")
    run.add_argument("--race", action="store_true", help="the first sat/unsat verdict cancels the rest")
    run.add_argument("--jobs", type=int, default=None, help="candidates at once (default: CPU count)")
    run.add_argument("--seed-file", type=Path, help="input that byte_N models are overlaid on")
    run.add_argument("--payload-dir", type=Path, help="write each SAT payload to DIR/candidate-<i>.bin")
    run.add_argument("--smt2", action="store_true", help="the files are SMT-LIB 2")
    run.add_argument("--cores", action="store_true", help="report unsat cores as script lines")
    run.add_argument("--no-verify", action="store_true", help="do not re-check SAT models")
    run.add_argument("--isolation", choices=("kernel", "process"), default=None)
    run.add_argument("--json", action="store_true", help="one JSON object per candidate")
    _add_limit_options(run)
    run.set_defaults(func=_run_command)


def candidate_json(result: RunResult, index: int) -> dict[str, Any]:
    data = result[index].to_dict()
    data["payload"] = data.pop("payload_hex")
    return data


def _run_command(args: argparse.Namespace) -> int:
    from .host.sandbox import run

    try:
        scripts = [Path(f).read_text(encoding="utf-8") for f in args.scripts]
        seed = args.seed_file.read_bytes() if args.seed_file else None
        limits = Limits().replace(**{spec.name: getattr(args, spec.name) for spec in LIMIT_FIELDS})
        result = run(scripts if len(scripts) > 1 else scripts[0], k=args.k,
                     language="smt2" if args.smt2 else "python", limits=limits, seed=seed,
                     race=args.race, jobs=args.jobs, cores=args.cores, verify=not args.no_verify,
                     isolation=args.isolation)
    except (OSError, ValueError) as exc:
        print(f"z3sandbox: error: {exc}", file=sys.stderr)
        return 2
    if args.payload_dir:
        os.makedirs(args.payload_dir, exist_ok=True)
        for candidate in result:
            if candidate.payload is not None:
                (args.payload_dir / f"candidate-{candidate.index}.bin").write_bytes(candidate.payload)
    if args.json:
        for index in range(len(result)):
            print(json.dumps(candidate_json(result, index)))
    else:
        print(run_text(result))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="z3sandbox", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", required=True)
    _add_run_command(subparsers)
    try:
        from .jupyter.kernelspec import add_cli_commands
    except ImportError:  # the Jupyter side is optional for the engine
        pass
    else:
        add_cli_commands(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # e.g. piped into head: not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (stops the flush at exit from failing too)
        return 0


if __name__ == "__main__":
    sys.exit(main())
