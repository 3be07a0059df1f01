"""``%%z3sandbox`` and ``%z3sandbox``: run the cell (or a list of scripts) in the sandbox.

The order of one run, each step before the next::

    1. parse the options (a wrong one: UsageError with the usage line and a "did you mean")
    2. gather the scripts: the cell body, split on ``# %% candidate [NAME]`` lines, or
       ``--candidates VAR`` (scripts.py: names, source previews, cell line numbers)
    3. read ``--seed VAR``, build the Limits from the Z3Sandbox config and the options
    4. check every script's size                      -- no process has been started up to here
    5. take the shell's long-lived Sandbox for the isolation level (its zygote starts once)
    6. show the live display, run (the engine calls on_update in this thread), then turn the
       display into the final result in place (table.py); terminal IPython: a progress line
    7. bind NAME (default ``_z3``) in the user namespace (and display the RunResult, where the
       live display did not already become it)
    8. if the run was interrupted, end the cell with KeyboardInterrupt

An interrupt in step 6 makes the engine kill every candidate and return the partial result
(``interrupted=True``, the rest ``cancelled``), which goes through step 7 like any other; step 8
then ends the cell as an interrupted cell ends, so that Jupyter's "Run All" stops there, with one
line saying what was kept and what never started (``RunInterrupted``: no traceback into this
package); ``NAME.rerun()`` runs the unfinished candidates and puts them in their rows.

``--afl-sync DIR`` writes each new sat payload, as its candidate finishes, into an AFL++ sync
folder (payload_files.py: atomically, once per distinct payload).

The line magic is the cell magic without a body: ``%z3sandbox --candidates VAR [options]`` runs the
scripts in VAR, binds NAME and displays the result; it returns None (read the result from NAME).
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import keyword
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class

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
from ..contracts.results import CandidateResult, RunResult
from ..presentation.progress import ProgressLine
from ..presentation.textview import use_terminal_width
from .config import Z3Sandbox
from .outcome import RunInterrupted, afl_writer, interrupted_line, merged_rerun, rerun_rows, rerun_table, then
from .scripts import Script, annotated, annotator, empty_body_as_line_magic, scripts_from, split_cell
from .table import LiveDisplay, LiveView, has_display_frontend
from .typed_ipython import Method, argument, argument_group, display, magic_arguments, parser_of

if TYPE_CHECKING:
    from distributed import Client
    from IPython.core.interactiveshell import InteractiveShell

    from ..host.sandbox import Sandbox

# ------------------------------------------------------------------------------------------ options

def _run_options(func: Method) -> Method:
    """One option per run option of the magic, from ``options.RUN_OPTIONS``."""
    for flags, keywords in reversed(argparse_specs("magic")):
        func = argument(*flags, **keywords)(func)
    return argument_group("run options")(func)


def _limit_options(func: Method) -> Method:
    """One option per limit, from ``LIMIT_FIELDS``; defaults come from the Z3Sandbox config."""
    for flags, keywords in reversed(limit_specs("magic")):
        func = argument(*flags, **keywords)(func)
    return argument_group("limits")(func)


def _read_variable(namespace: dict[str, object], name: str, option: str) -> object:
    if name not in namespace:
        raise UsageError(f"{option} {name}: no variable of that name in the namespace")
    return namespace[name]


# -------------------------------------------------------------------------------------------- magic

@dataclasses.dataclass
class _Running:
    """The run going now: its sandbox and live view, the engine's index of each row of its
    table (a rerun's rows keep the cell's indices), and the rows its Stop buttons stopped."""

    sandbox: Sandbox
    view: LiveView
    engine_index: dict[int, int]
    stopped: set[int]


@magics_class
class Z3SandboxMagics(Magics):
    """The magics, their config (``Z3Sandbox``) and the shell's long-lived sandboxes."""

    def __init__(self, shell: InteractiveShell) -> None:
        super().__init__(shell)
        self.options = Z3Sandbox(parent=shell)
        if self.options not in (configurables := cast("list[object]", shell.configurables)):  # mis-annotated
            configurables.append(self.options)  # %config Z3Sandbox lists and sets it
        self._sandboxes: dict[str | None, Sandbox] = {}
        self._running: _Running | None = None  # the sandbox, view and rows of the run going
        atexit.register(self.close)

    def sandbox(self, isolation: str | None) -> Sandbox:
        """The Sandbox for ``isolation``, started on first use and kept for the session."""
        if isolation not in self._sandboxes:
            from ..host.sandbox import Sandbox

            self._sandboxes[isolation] = Sandbox(
                isolation=isolation, require=tuple(self.options.require), graces=self.options.graces()
            )
        self._sandboxes[isolation].graces = self.options.graces()  # %config applies to the next run
        return self._sandboxes[isolation]

    def sandbox_count(self) -> int:
        return len(self._sandboxes)

    def close(self) -> None:
        sandboxes, self._sandboxes = list(self._sandboxes.values()), {}
        for sandbox in sandboxes:
            sandbox.close()

    @magic_arguments()
    @argument("--candidates", metavar="VAR",
              help="run the scripts in VAR (a list of strings, or a dict: its keys name them) "
              "instead of the cell body")
    @argument("--seed", metavar="VAR",
              help="bytes, bytearray or memoryview in VAR that byte_N models overlay")
    @argument("--seed-file", metavar="PATH", dest="seed_file",
              help="the file byte_N models overlay (as the CLI's --seed-file; or --seed VAR)")
    @argument("--dask", metavar="ADDRESS_OR_VAR",
              help="run on a Dask cluster: a distributed.Client in VAR, or a scheduler address")
    @argument("--out", metavar="NAME", default="_z3",
              help="bind the RunResult to NAME in the namespace (default _z3)")
    @argument("--afl-sync", metavar="DIR", dest="afl_sync",
              help="write each new sat payload into the AFL++ sync folder DIR (afl-fuzz -o DIR), "
              "as DIR/z3sandbox/queue/id:N,sha256:HASH, atomically and once per distinct payload")
    @_run_options
    @_limit_options
    @line_cell_magic
    def z3sandbox(self, line: str, cell: str | None = None) -> None:
        """Run Z3Py (or SMT-LIB 2) candidates in fresh, limited, isolated processes.

        %%z3sandbox [options]: the cell body is the script; lines '# %% candidate' split it into
        several candidates.  %z3sandbox --candidates VAR [options]: run the scripts in VAR.
        Defaults come from %config Z3Sandbox (e.g. %config Z3Sandbox.timeout_s = 10).
        The result is bound to NAME (--out, default _z3): NAME.verdict, NAME.model,
        NAME.payload, NAME.models, NAME.payloads, NAME[i].  An interrupt binds the partial
        result, shows it, then ends the cell with KeyboardInterrupt (so Run All stops).

        What a hostile candidate still decides: it reports its own model and assertions, so
        "verified" means its model satisfies what it asserted, not your question; with --race
        the first "sat" wins, hostile or not.  The sandbox bounds what it can do to the
        machine, not what it claims.
        """
        args = self._parse(line)
        assert self.shell is not None  # set by register_magics
        namespace = self.shell.user_ns
        scripts = self._scripts(args, cell, namespace)
        seed = self._seed(args, namespace)
        client = self._client(args, namespace)
        limits = self._limits(args)
        for index, script in enumerate(scripts):
            size = len(script.source.encode("utf-8", "surrogatepass"))
            if size > limits.script_kb * 1024:
                raise UsageError(
                    f"candidate {index} is {size / 1024:.1f} KB, over the script size limit of "
                    f"{limits.script_kb} KB (--script-size or Z3Sandbox.script_kb)"
                )
        options = resolve(args, self.options, limits=limits, seed=seed,
                          require=tuple(self.options.require),
                          record_dir=self.options.record_dir or None)
        quiet = bool(chosen("quiet", args, self.options))
        result, shown = self.run(scripts, options, quiet, client=client, afl_sync=args.afl_sync)
        result._rerun = self._rerunner(scripts, options, quiet, args.out)
        namespace[args.out] = result
        if not shown:
            display(result)
        if result.interrupted:
            # End the cell as an interrupted cell ends, so that "Run All" stops here; the
            # partial result is bound and shown above.  One script with -k: rerun() cannot run
            # some of its seeds, so the line says to run the cell again.
            rerun = not (options.k is not None and len(scripts) == 1)
            raise RunInterrupted(interrupted_line(result, args.out, rerun))

    def _rerunner(self, scripts: list[Script], options: RunOptions, quiet: bool,
                  name: str) -> Callable[[RunResult, list[int]], RunResult]:
        """``RunResult.rerun``: the chosen candidates again, as this run ran them, merged into a
        copy of the result that is bound to ``name`` again."""

        def rerun(result: RunResult, which: list[int]) -> RunResult:
            if options.k is not None and len(scripts) == 1:
                raise ValueError("rerun() needs the candidates' own scripts; with -k, run the cell again")
            expected = options.expected
            if expected and len(expected) > 1:  # one per script: those of the scripts run again
                expected = tuple(expected[i] if i < len(expected) else None for i in which)
            merged, _ = self.run([scripts[i] for i in which], options.replace(expected=expected), quiet,
                                 rerun_of=(result, which))
            assert self.shell is not None
            self.shell.user_ns[name] = merged
            return merged

        return rerun

    # -- the steps

    def _parse(self, line: str) -> argparse.Namespace:
        parser = parser_of(Z3SandboxMagics.z3sandbox)
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

    def _scripts(self, args: argparse.Namespace, cell: str | None,
                 namespace: dict[str, object]) -> list[Script]:
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

    def _seed(self, args: argparse.Namespace, namespace: dict[str, object]) -> bytes | None:
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

    def _client(self, args: argparse.Namespace, namespace: dict[str, object]) -> Client | None:
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

    def _limits(self, args: argparse.Namespace) -> Limits:
        try:
            return self.options.limits(**{spec.name: getattr(args, spec.name)
                                          for spec in LIMIT_FIELDS})
        except ValueError as exc:
            raise UsageError(limit_error(str(exc))) from None

    def _view(self, quiet: bool, annotate: Callable[[CandidateResult], CandidateResult],
              rerun_of: tuple[RunResult, list[int]] | None) -> LiveView | None:
        if quiet:
            return None
        if has_display_frontend(self.shell):
            # A rerun's table ends as one line: the merged result NAME.rerun() returns is the table.
            note = (f"z3sandbox: ran {' '.join(f'#{i}' for i in rerun_of[1])} again "
                    "(marked (rerun)): the merged table is rerun()'s result") if rerun_of else None
            return LiveDisplay(updates_per_s=self.options.updates_per_s, annotate=annotate,
                               final_note=note)
        return ProgressLine()

    def run(self, scripts: list[Script], options: RunOptions, quiet: bool, *, afl_sync: str | None = None,
            client: Client | None = None, rerun_of: tuple[RunResult, list[int]] | None = None
            ) -> tuple[RunResult, bool]:
        """Steps 5 and 6: start (or reuse) the sandbox, run with the live view.  Returns the
        result and whether the live view already shows it (in place of the live table).
        ``rerun_of``: (a result, the rows that ``scripts`` run again): the table and the result
        are that result's, with those rows replaced and marked."""
        sandbox = self.sandbox(options.isolation)
        options = options.replace(labels=[script.label for script in scripts])
        stopped: set[int] = set()
        annotate = annotator(scripts, options.k, self.shell.user_ns if self.shell else None, stopped)
        if rerun_of is not None:
            annotate = then(annotate, rerun_rows(rerun_of[1]))
        sources = [script.source for script in scripts]
        view = self._view(quiet, annotate, rerun_of)
        done: RunResult | None = None
        if view is None:
            on_update = afl_writer(afl_sync, None)
            done = annotated(self._engine_run(sandbox, sources, options, on_update, client), annotate)
            return (merged_rerun(*rerun_of, done) if rerun_of else done), False
        if rerun_of is not None:
            queued = rerun_table(*rerun_of)
        else:
            count = len(scripts) if options.k is None else (
                options.k if len(scripts) == 1 else 0  # unknown: rows appear as they report
            )
            queued = [annotate(CandidateResult(index=i, verdict=None, state="queued"))
                      for i in range(count)]
        view.start(RunResult(
            candidates=queued, limits=options.limits, language=options.language,
            isolation=sandbox.isolation(),
        ))
        rows = rerun_of[1] if rerun_of else list(range(len(queued)))
        self._running = _Running(sandbox, view, {row: i for i, row in enumerate(rows)}, stopped)
        try:
            on_update = afl_writer(afl_sync, view.update)
            done = annotated(self._engine_run(sandbox, sources, options, on_update, client), annotate)
            if rerun_of is not None:
                done = merged_rerun(*rerun_of, done)
        finally:
            # Also on an error: the view's timer thread must end before the cell does.
            self._running = None
            shown = view.finish(done)
        return done, shown

    def stop_candidate(self, display_id: str | None, index: int) -> bool:
        """Stop (or skip) one candidate of the run going now, if ``display_id`` is its live
        display's: the kernel's control channel calls this while the cell runs (kernel.py).
        ``index`` is the table's (a rerun's rows keep the cell's); its row then says so."""
        running = self._running
        if running is None or getattr(running.view, "display_id", None) != display_id:
            return False
        engine = running.engine_index.get(index, index)
        running.stopped.add(engine)
        return bool(running.sandbox.stop_candidate(engine))

    @staticmethod
    def _engine_run(sandbox: Sandbox, scripts: list[str], options: RunOptions,
                    on_update: Callable[[CandidateResult], None] | None, client: Client | None) -> RunResult:
        try:
            return sandbox.run(scripts, options, on_update=on_update, client=client)
        except ValueError as exc:  # the engine's own input checks: one line, no traceback
            raise UsageError(str(exc).splitlines()[0] if str(exc) else repr(exc)) from None


# magic_arguments writes the usage as reStructuredText ("::" and an indented block): plain text.
Z3SandboxMagics.z3sandbox.__doc__ = (Z3SandboxMagics.z3sandbox.__doc__ or "").removeprefix("::\n\n")


def load_ipython_extension(ipython: InteractiveShell) -> None:
    if "Z3SandboxMagics" not in ipython.magics_manager.registry:
        ipython.register_magics(Z3SandboxMagics(ipython))
    if empty_body_as_line_magic not in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.append(empty_body_as_line_magic)
    if not has_display_frontend(ipython):  # terminal IPython: the table's reason fills the width
        use_terminal_width(lambda: shutil.get_terminal_size().columns)


def unload_ipython_extension(ipython: InteractiveShell) -> None:
    magics = ipython.magics_manager.registry.get("Z3SandboxMagics")
    if magics is not None:
        magics.close()
    use_terminal_width(None)


def magics_of(shell: InteractiveShell | None) -> Z3SandboxMagics | None:
    """The shell's Z3SandboxMagics, if the extension is loaded."""
    magics = shell.magics_manager.registry.get("Z3SandboxMagics") if shell is not None else None
    return magics if isinstance(magics, Z3SandboxMagics) else None

