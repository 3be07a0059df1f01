"""``z3sandbox`` / ``python -m z3sandbox_kernel``: run candidates from files, manage the kernelspec.

Exit status: 0 when the candidates ran (whatever their verdicts), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from .limits import LIMIT_FIELDS, Limits
from .options import argparse_specs, did_you_mean, limit_error, limit_specs, resolve
from .render import candidate_alone_text, printable, run_text, source_preview
from .results import CandidateResult, RunResult

# A file that starts like SMT-LIB: a comment or an s-expression naming an SMT-LIB command.
_SMTLIB_START = re.compile(
    r"\A(\s*;[^\n]*\n)*\s*\(\s*(set-logic|set-option|set-info|declare-|define-|assert|check-sat)"
)


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """One option per limit, from the limits model."""
    group = parser.add_argument_group("limits")
    for flags, keywords in limit_specs("cli"):
        group.add_argument(*flags, **keywords)


def _add_run_command(subparsers: Any) -> None:
    run = subparsers.add_parser("run", help="run candidate scripts in the sandbox")
    run.add_argument("scripts", nargs="+", metavar="FILE",
                     help="candidate scripts: Z3Py, or SMT-LIB for *.smt2 files (or with --smt2)")
    group = run.add_argument_group("run options")
    for flags, keywords in argparse_specs("cli"):
        group.add_argument(*flags, **keywords)
    run.add_argument("--seed-file", type=Path, help="input that byte_N models are overlaid on")
    run.add_argument("--payload-dir", type=Path, help="write each SAT payload to DIR/candidate-<i>.bin")
    run.add_argument("--json", action="store_true", help="one JSON object per candidate")
    run.add_argument("-v", "--verbose", action="store_true",
                     help="after the table, each candidate in full: reason, model, core, limits")
    run.add_argument("--show-output", action="store_true", help="print each script's stdout and stderr")
    _add_limit_options(run)
    run.set_defaults(func=_run_command)


def candidate_json(result: RunResult, index: int) -> dict[str, Any]:
    data = result[index].to_dict()
    data["payload"] = data.pop("payload_hex")
    return data


def _language(args: argparse.Namespace, paths: list[Path], texts: list[str]) -> str:
    """SMT-LIB for --smt2 or when every file is *.smt2; a mix is an error; a file that looks
    like SMT-LIB but runs as Python gets a note on stderr."""
    smt2 = [path.suffix == ".smt2" for path in paths]
    if args.smt2 or all(smt2):
        return "smt2"
    if any(smt2):
        raise ValueError("*.smt2 files and Python files in one run: run them separately")
    for path, text in zip(paths, texts, strict=True):
        if _SMTLIB_START.match(text):
            print(f"z3sandbox: note: {path} looks like SMT-LIB but runs as Python "
                  "(name it *.smt2 or pass --smt2)", file=sys.stderr)
    return "python"


def _run_command(args: argparse.Namespace) -> int:
    from .host.sandbox import run
    from .progress import ProgressLine

    chosen = resolve(args)
    view = None if chosen["quiet"] else ProgressLine()
    try:
        paths = [Path(f) for f in args.scripts]
        texts = [path.read_text(encoding="utf-8") for path in paths]
        seed = args.seed_file.read_bytes() if args.seed_file else None
        language = _language(args, paths, texts)
        limits = Limits().replace(**{spec.name: getattr(args, spec.name) for spec in LIMIT_FIELDS})
        if view is not None:
            count = chosen["k"] or len(texts)
            view.start(RunResult(candidates=[CandidateResult(index=i, verdict=None, state="queued")
                                             for i in range(count)]))
        result = run(texts if len(texts) > 1 else texts[0], k=chosen["k"], language=language,
                     limits=limits, seed=seed, race=chosen["race"], jobs=chosen["jobs"],
                     cores=chosen["cores"], verify=chosen["verify"], isolation=chosen["isolation"],
                     on_update=view.update if view else None)
    except (OSError, ValueError) as exc:
        print(f"z3sandbox: error: {limit_error(str(exc))}", file=sys.stderr)
        return 2
    finally:
        if view is not None:
            view.finish(None)  # erase the progress line before the table
    _name(result, paths, texts)
    _report(args, result)
    return 0


def _name(result: RunResult, paths: list[Path], texts: list[str]) -> None:
    """Each candidate is labelled with its file's name (every -k seed of one file, the same)."""
    for candidate in result:
        index = 0 if len(paths) == 1 else candidate.index
        if index < len(paths):
            candidate.label = paths[index].name
            candidate.source_preview = source_preview(texts[index])


def _report(args: argparse.Namespace, result: RunResult) -> None:
    if args.payload_dir:
        os.makedirs(args.payload_dir, exist_ok=True)
        for candidate in result:
            if candidate.payload is not None:
                (args.payload_dir / f"candidate-{candidate.index}.bin").write_bytes(candidate.payload)
    if args.json:
        for index in range(len(result)):
            print(json.dumps(candidate_json(result, index)))
        return
    print(run_text(result, cores=bool(args.cores)))
    for candidate in result:
        if args.verbose:
            print(f"\n{candidate_alone_text(candidate)}")
        if args.show_output:
            for stream in ("stdout", "stderr"):
                text = getattr(candidate, stream)
                if text:
                    name = candidate.label or f"candidate {candidate.index}"
                    print(f"\n--- {stream} of {candidate.index} ({name}) ---")
                    # Lines end at "\n" only: a "\r" (or \x85, \u2028) is shown escaped, never
                    # obeyed by the terminal (issue 20).
                    print("\n".join(printable(line.replace("\r", "\\r"))
                                     for line in text.rstrip("\n").split("\n")))


def _run_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    run: argparse.ArgumentParser = subparsers.choices["run"]
    return run


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
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        message = f"unrecognized arguments: {' '.join(unknown)}"
        flags = [flag for action in _run_parser(parser)._actions for flag in action.option_strings]
        parser.error(message + did_you_mean(message, flags))
    try:
        return int(args.func(args))
    except BrokenPipeError:  # e.g. piped into head: not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (stops the flush at exit from failing too)
        return 0


if __name__ == "__main__":
    sys.exit(main())
