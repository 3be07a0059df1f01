"""``z3sandbox`` / ``python -m z3sandbox_kernel``: run candidates from files, manage the kernelspec.

Exit status: 0 when the candidates ran (whatever their verdicts), 2 for a usage error or a payload
that --payload-dir could not write (the table is printed first), 130 after
Ctrl-C and 143 after SIGTERM (each prints the partial table first).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .contracts.limits import LIMIT_FIELDS, Limits
from .contracts.options import argparse_specs, chosen, did_you_mean, limit_error, limit_specs, resolve
from .contracts.results import CandidateResult, RunResult
from .presentation.phrases import source_preview
from .presentation.printable import printable, printable_lines
from .presentation.textview import candidate_alone_text, run_text

DESCRIPTION = "z3sandbox (or python -m z3sandbox_kernel): run candidates from files, manage the kernelspec."
RUN_EPILOG = ("Exit status: 0 when the candidates ran, whatever their verdicts; 2 for a usage error or a "
              "payload not written; "
              "130 after Ctrl-C, 143 after SIGTERM (the candidates that finished are shown).")

# A file that starts like SMT-LIB: a comment or an s-expression naming an SMT-LIB command.
_SMTLIB_START = re.compile(
    r"\A(\s*;[^\n]*\n)*\s*\(\s*(set-logic|set-option|set-info|declare-|define-|assert|check-sat)"
)


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """One option per limit, from the limits model."""
    group = parser.add_argument_group("limits")
    for flags, keywords in limit_specs("cli"):
        group.add_argument(*flags, **keywords)


def _add_run_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = subparsers.add_parser("run", help="run candidate scripts in the sandbox",
                                description="Run candidate scripts in the sandbox.", epilog=RUN_EPILOG)
    run.add_argument("scripts", nargs="+", metavar="FILE",
                     help="candidate scripts: Z3Py, or SMT-LIB for *.smt2 files (or with --smt2)")
    group = run.add_argument_group("run options")
    for flags, keywords in argparse_specs("cli"):
        group.add_argument(*flags, **keywords)
    run.add_argument("--seed-file", type=Path, metavar="FILE",
                     help="input that byte_N models are overlaid on")
    run.add_argument("--payload-dir", type=Path, metavar="DIR",
                     help="write each SAT payload to DIR/candidate-<i>.bin (DIR made if missing, "
                          "no link followed, no file there replaced)")
    run.add_argument("--json", action="store_true", help="one JSON object per candidate")
    run.add_argument("-v", "--verbose", action="store_true",
                     help="after the table, each candidate in full: reason, model, core, limits")
    run.add_argument("--show-output", action="store_true", help="print each script's stdout and stderr")
    run.add_argument("--record", type=Path, metavar="DIR",
                     help="append the run's record to DIR/<run_id>.jsonl (load_runs reads it)")
    _add_limit_options(run)
    run.set_defaults(func=_run_command)


def candidate_json(result: RunResult, index: int) -> dict[str, object]:
    data: dict[str, object] = dict(result[index].to_dict())
    data["payload"] = data.pop("payload_hex")
    return data


def _language(args: argparse.Namespace, paths: list[Path], texts: list[str]) -> str:
    """SMT-LIB for --smt2 or when every file is *.smt2; a mix is an error; a file that looks
    like SMT-LIB but runs as Python gets a note on stderr."""
    smt2 = [path.suffix == ".smt2" for path in paths]
    if args.language == "smt2" or all(smt2):
        return "smt2"
    if any(smt2):
        raise ValueError("*.smt2 files and Python files in one run: run them separately")
    for path, text in zip(paths, texts, strict=True):
        if _SMTLIB_START.match(text):
            print(f"z3sandbox: note: {path} looks like SMT-LIB but runs as Python "
                  "(name it *.smt2 or pass --smt2)", file=sys.stderr)
    return "python"


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                         f"{exc.start}); a candidate is a Z3Py or SMT-LIB script") from None


def _check_payload_dir(folder: Path | None) -> None:
    """Before the run: the payload folder exists (made here if missing), is no link, takes files."""
    if folder is None:
        return
    from .contracts.hostfiles import Folder

    try:
        Folder.open(folder).close()
    except ValueError as exc:
        raise ValueError(f"--payload-dir {exc}") from None
    except OSError as exc:
        raise ValueError(f"--payload-dir {folder}: cannot make it ({exc.strerror})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"--payload-dir {folder}: not writable")


def _write_payloads(folder: Path, result: RunResult) -> list[str]:
    """candidate-<i>.bin, -model-<n>.bin (--models) and -check-<n>.bin, each a new file (no link
    followed, nothing there replaced); returns the errors, one line each."""
    from .contracts.hostfiles import Folder

    errors = []
    try:
        with Folder.open(folder) as target:
            for candidate in result:
                for name, payload in candidate.named_payloads():
                    stem = "-".join(filter(None, (f"candidate-{candidate.index}", name)))
                    if target.write_new(f"{stem}.bin", payload) is None:
                        errors.append(f"--payload-dir {folder}: {stem}.bin is there already, "
                                      "left as it is (a file this run did not write)")
    except (OSError, ValueError) as exc:
        errors.append(f"--payload-dir: {exc}")
    return errors


@contextmanager
def _stop_on_sigterm() -> Iterator[list[int]]:
    """While the run goes, SIGTERM stops it as Ctrl-C does (KeyboardInterrupt in the waiting
    thread: every candidate killed, the finished ones kept); the list says which signal came."""
    seen: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        seen.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run_command(args: argparse.Namespace) -> int:
    from .host.sandbox import run
    from .presentation.progress import ProgressLine

    # Not on a terminal (a log): a progress line every 10 s, so long runs show they are alive.
    view = None if chosen("quiet", args) else ProgressLine(lines_s=10.0)
    try:
        paths = [Path(f) for f in args.scripts]
        texts = [_read_text(path) for path in paths]
        seed = args.seed_file.read_bytes() if args.seed_file else None
        _check_payload_dir(args.payload_dir)
        limits = Limits().replace(**{spec.name: getattr(args, spec.name) for spec in LIMIT_FIELDS})
        options = resolve(args, language=_language(args, paths, texts), limits=limits, seed=seed,
                          record_dir=args.record, labels=[path.name for path in paths])
        if view is not None:
            count = options.k or len(texts)
            view.start(RunResult(candidates=[CandidateResult(index=i, verdict=None, state="queued")
                                             for i in range(count)]))
        with _stop_on_sigterm() as signals:
            result = run(texts if len(texts) > 1 else texts[0], options,
                         on_update=view.update if view else None)
    except (OSError, ValueError) as exc:
        print(f"z3sandbox: error: {limit_error(str(exc))}", file=sys.stderr)
        return 2
    finally:
        if view is not None:
            view.finish(None)  # erase the progress line before the table
    _name(result, paths, texts)
    unwritten = _write_payloads(args.payload_dir, result) if args.payload_dir else []
    _report(args, result)
    for line in unwritten:
        print(f"z3sandbox: error: {line}", file=sys.stderr)
    if result.interrupted:  # as a shell expects of a command ended by a signal: 128 + its number
        stopped_by = signals[0] if signals else signal.SIGINT
        print(f"z3sandbox: stopped by {signal.Signals(stopped_by).name}: the finished candidates are "
              "above, the rest cancelled", file=sys.stderr)
        return 128 + stopped_by
    return 2 if unwritten else 0


def _name(result: RunResult, paths: list[Path], texts: list[str]) -> None:
    """Each candidate is labelled with its file's name (every -k seed of one file, the same)."""
    for candidate in result:
        index = 0 if len(paths) == 1 else candidate.index
        if index < len(paths):
            candidate.label = paths[index].name
            candidate.source_preview = source_preview(texts[index])


def _report(args: argparse.Namespace, result: RunResult) -> None:
    if args.json:
        for index in range(len(result)):
            print(json.dumps(candidate_json(result, index)))
        return
    # On a terminal (or with $COLUMNS) the reason column takes the rest of its width, as in
    # terminal IPython; into a file or a pipe the table keeps its fixed width.
    print(run_text(result, shutil.get_terminal_size(fallback=(0, 0)).columns or None))
    for candidate in result:
        if args.verbose:
            print(f"\n{candidate_alone_text(candidate)}")
        if args.show_output:
            for stream in ("stdout", "stderr"):
                text = getattr(candidate, stream)
                if text:
                    # A file name is shown as any candidate text is (an OSC 52 sequence in it
                    # never reaches the terminal); lines end at "\n" only: a "\r" (or \x85,
                    # \u2028) is shown escaped, so a candidate cannot redraw the lines before it.
                    name = printable(candidate.label or f"candidate {candidate.index}")
                    print(f"\n--- {stream} of {candidate.index} ({name}) ---")
                    print(printable_lines(text.rstrip("\n")))


def _sub_parser_action(
    parser: argparse.ArgumentParser,
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _sub_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    sub: argparse.ArgumentParser = _sub_parser_action(parser).choices[command]
    return sub


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="z3sandbox", description=DESCRIPTION)
    subparsers = parser.add_subparsers(dest="command", required=True)
    _add_run_command(subparsers)
    from .agents.mcp_server import add_cli_command as add_mcp_command  # imports mcp only to serve

    add_mcp_command(subparsers)
    try:
        from .jupyter.kernelspec import add_cli_commands
    except ImportError:  # the Jupyter side is optional for the engine
        pass
    else:
        add_cli_commands(subparsers)
    return parser


def _check_command(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """A misspelt sub-command: the usage error says which one was meant."""
    commands = list(_sub_parser_action(parser).choices)
    word = next((arg for arg in argv if not arg.startswith("-")), None)
    if word is not None and word not in commands:
        close = difflib.get_close_matches(word, commands, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        parser.error(f"unknown command {word!r}{hint}; the commands are {', '.join(commands)}")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    _check_command(parser, sys.argv[1:] if argv is None else argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the sub-command's usage and flags, not the top level's
        sub = _sub_parser(parser, args.command)
        message = f"unrecognized arguments: {' '.join(unknown)}"
        flags = [flag for action in sub._actions for flag in action.option_strings]
        sub.error(message + did_you_mean(message, flags))
    try:
        return int(args.func(args))
    except KeyboardInterrupt:  # Ctrl-C outside a run (a run returns its partial result)
        print("z3sandbox: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except BrokenPipeError:  # e.g. piped into head: not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (stops the flush at exit from failing too)
        return 0


if __name__ == "__main__":
    sys.exit(main())
