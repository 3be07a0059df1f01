"""Steps 5 and 6 of magic.py: the shell's long-lived sandboxes, and a cell's run on one of them with
its live view (a live table in a notebook, a progress line in a terminal, none when quiet), whose
Stop buttons reach the run going now through the kernel's control channel (kernel.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ..contracts.options import RunOptions
from ..contracts.results import CandidateResult, RunResult
from ..presentation.progress import ProgressLine
from .outcome import afl_writer, merged_rerun, rerun_rows, rerun_table, then
from .scripts import Script, annotated, annotator
from .table import LiveDisplay, LiveView, has_display_frontend

if TYPE_CHECKING:
    from distributed import Client
    from IPython.core.interactiveshell import InteractiveShell

    from ..host.sandbox import Sandbox
    from .config import _Z3SandboxOptions as Config  # the class of the Z3Sandbox config

Rerun = tuple[RunResult, list[int]]  # a result, and the rows of it that run again


class Sandboxes:
    """The shell's Sandbox per isolation level, made on first use (the config's required layers)
    and kept for the session; ``%config`` graces apply to each one's next run."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self._made: dict[str | None, Sandbox] = {}

    def get(self, isolation: str | None) -> Sandbox:
        if isolation not in self._made:
            from ..host.sandbox import Sandbox

            self._made[isolation] = Sandbox(
                isolation=isolation, require=tuple(self._config.require), graces=self._config.graces()
            )
        self._made[isolation].graces = self._config.graces()  # %config applies to the next run
        return self._made[isolation]

    def __len__(self) -> int:
        return len(self._made)

    def close(self) -> None:
        sandboxes, self._made = list(self._made.values()), {}
        for sandbox in sandboxes:
            sandbox.close()


@dataclasses.dataclass
class _Running:
    """The run going now: its sandbox and live view, the engine's index of each row of its
    table (a rerun's rows keep the cell's indices), and the rows its Stop buttons stopped."""

    sandbox: Sandbox
    view: LiveView
    engine_index: dict[int, int]
    stopped: set[int]


class LiveRunner:
    """Runs a cell's scripts with the live view, and stops one candidate of the run going now."""

    def __init__(self, shell: InteractiveShell | None, config: Config, sandboxes: Sandboxes) -> None:
        self._shell, self._config, self._sandboxes = shell, config, sandboxes
        self._running: _Running | None = None  # the sandbox, view and rows of the run going

    def _view(self, quiet: bool, annotate: Callable[[CandidateResult], CandidateResult],
              rerun_of: Rerun | None) -> LiveView | None:
        if quiet:
            return None
        if has_display_frontend(self._shell):
            # A rerun's table ends as one line: the merged result NAME.rerun() returns is the table.
            note = (f"z3sandbox: ran {' '.join(f'#{i}' for i in rerun_of[1])} again "
                    "(marked (rerun)): the merged table is rerun()'s result") if rerun_of else None
            return LiveDisplay(updates_per_s=self._config.updates_per_s, annotate=annotate,
                               final_note=note)
        return ProgressLine()

    def run(self, scripts: list[Script], options: RunOptions, quiet: bool, *, afl_sync: str | None = None,
            client: Client | None = None, rerun_of: Rerun | None = None) -> tuple[RunResult, bool]:
        """Steps 5 and 6: start (or reuse) the sandbox, run with the live view.  Returns the
        result and whether the live view already shows it (in place of the live table).
        ``rerun_of``: (a result, the rows that ``scripts`` run again): the table and the result
        are that result's, with those rows replaced and marked."""
        sandbox = self._sandboxes.get(options.isolation)
        options = options.replace(labels=[script.label for script in scripts])
        stopped: set[int] = set()
        annotate = annotator(scripts, options.k, self._shell.user_ns if self._shell else None, stopped)
        if rerun_of is not None:
            annotate = then(annotate, rerun_rows(rerun_of[1]))
        sources = [script.source for script in scripts]
        view = self._view(quiet, annotate, rerun_of)
        done: RunResult | None = None
        if view is None:
            on_update = afl_writer(afl_sync, None)
            done = annotated(_engine_run(sandbox, sources, options, on_update, client), annotate)
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
            done = annotated(_engine_run(sandbox, sources, options, on_update, client), annotate)
            if rerun_of is not None:
                done = merged_rerun(*rerun_of, done)
        finally:
            # Also on an error: the view's timer thread must end before the cell does.
            self._running = None
            shown = view.finish(done)
        return done, shown

    def stop_candidate(self, display_id: str | None, index: int) -> bool:
        """Stop (or skip) one candidate of the run going now, if ``display_id`` is its live
        display's.  ``index`` is the table's (a rerun's rows keep the cell's); its row then
        says so."""
        running = self._running
        if running is None or getattr(running.view, "display_id", None) != display_id:
            return False
        engine = running.engine_index.get(index, index)
        running.stopped.add(engine)
        return bool(running.sandbox.stop_candidate(engine))


def _engine_run(sandbox: Sandbox, scripts: list[str], options: RunOptions,
                on_update: Callable[[CandidateResult], None] | None, client: Client | None) -> RunResult:
    try:
        return sandbox.run(scripts, options, on_update=on_update, client=client)
    except ValueError as exc:  # the engine's own input checks: one line, no traceback
        raise UsageError(str(exc).splitlines()[0] if str(exc) else repr(exc)) from None
