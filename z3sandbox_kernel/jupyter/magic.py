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

Steps 1-4 are cell_args.py's, 5 and 6 live_run.py's, 7 and 8 this module's.

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

import atexit
import shutil
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from IPython.core.magic import Magics, line_cell_magic, magics_class

from ..contracts.options import RunOptions
from ..contracts.results import RunResult
from ..presentation.textview import use_terminal_width
from .cell_args import limit_options, read_cell, run_options
from .config import Z3Sandbox
from .live_run import LiveRunner, Sandboxes
from .outcome import RunInterrupted, interrupted_line
from .scripts import Script, empty_body_as_line_magic
from .table import has_display_frontend
from .typed_ipython import argument, display, magic_arguments, parser_of

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ..host.sandbox import Sandbox


@magics_class
class Z3SandboxMagics(Magics):
    """The magics and their config (``Z3Sandbox``).  What a cell asks is read by cell_args.py,
    run with its live view by live_run.py (on the shell's long-lived sandboxes); the magic binds
    the result in the namespace."""

    def __init__(self, shell: InteractiveShell) -> None:
        super().__init__(shell)
        self.options = Z3Sandbox(parent=shell)
        if self.options not in (configurables := cast("list[object]", shell.configurables)):  # mis-annotated
            configurables.append(self.options)  # %config Z3Sandbox lists and sets it
        self._sandboxes = Sandboxes(self.options)
        self._runner = LiveRunner(shell, self.options, self._sandboxes)
        atexit.register(self.close)

    def sandbox(self, isolation: str | None) -> Sandbox:
        """The Sandbox for ``isolation``, started on first use and kept for the session."""
        return self._sandboxes.get(isolation)

    def sandbox_count(self) -> int:
        return len(self._sandboxes)

    def close(self) -> None:
        self._sandboxes.close()

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
    @run_options
    @limit_options
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
        assert self.shell is not None  # set by register_magics
        namespace = self.shell.user_ns
        asked = read_cell(parser_of(Z3SandboxMagics.z3sandbox), line, cell, namespace, self.options)
        scripts, options = asked.scripts, asked.options
        result, shown = self._runner.run(scripts, options, asked.quiet, client=asked.client,
                                         afl_sync=asked.afl_sync)
        result._rerun = self._rerunner(scripts, options, asked.quiet, asked.out)
        namespace[asked.out] = result
        if not shown:
            display(result)
        if result.interrupted:
            # End the cell as an interrupted cell ends, so that "Run All" stops here; the
            # partial result is bound and shown above.  One script with -k: rerun() cannot run
            # some of its seeds, so the line says to run the cell again.
            rerun = not (options.k is not None and len(scripts) == 1)
            raise RunInterrupted(interrupted_line(result, asked.out, rerun))

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
            merged, _ = self._runner.run([scripts[i] for i in which], options.replace(expected=expected),
                                         quiet, rerun_of=(result, which))
            assert self.shell is not None
            self.shell.user_ns[name] = merged
            return merged

        return rerun

    def stop_candidate(self, display_id: str | None, index: int) -> bool:
        """Stop (or skip) one candidate of the run going now, if ``display_id`` is its live
        display's: the kernel's control channel calls this while the cell runs (kernel.py)."""
        return self._runner.stop_candidate(display_id, index)


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

