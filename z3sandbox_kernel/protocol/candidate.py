"""The facts a candidate has, described once (``CandidateFacts``), in their wire form: what a run's
record line (``contracts/record.CandidateRecord``: the facts and the volatile figures) and the run
document's row (``protocol/document.DocumentCandidate``: the facts and what its row shows) both
extend.  A fact added here reaches the records' JSONL, ``RunResult.to_json``, the display
document, its schema and the labextension's TypeScript types (``python tools/sync_docs.py``), and
the MCP output's field types (agents/mcp_schema.py; tests/agents check that it says or leaves out
each one by name).

Every field has a default but ``index``: a record or document written before a field existed
lacks it and reads as it always did; a field this version does not know is ignored.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from .messages import CandidateError, CheckDict, ModelDict, Objective
from .roles import Kill
from .verdicts import Verdict
from .wire import JsonValue

# Read as text, not as the enum: a kill reason this version does not know (a later version's
# record or document) reads as none (Kill.read), not as a failed load.
KillName = Annotated[str, msgspec.Meta(extra_json_schema={"enum": [kill.value for kill in Kill]})]
CoreLine = tuple[int, str]  # an unsat core's entry: [script line, its text]
Model = dict[str, JsonValue]  # name -> encode_value(value): a model as it travels and is saved


class CandidateFacts(msgspec.Struct, kw_only=True):
    """What a candidate did, as JSON: ``CandidateResult`` less its volatile figures and where it
    ran (its model's values encoded, ``encode_value``; its payload as ``payload_hex``).
    ``verdict`` is null while it waits or runs (``state``)."""

    index: int
    verdict: Verdict | None = None
    state: Literal["queued", "running", "done"] = "done"
    reason: str = ""
    model: Model | None = None
    payload_hex: str | None = None
    payload_error: str | None = None
    unsat_core: list[CoreLine] | None = None
    objectives: list[Objective] = []  # a sat Optimize check's goals
    more_models: list[ModelDict] = []  # models=N: the further models found
    checks: list[CheckDict] = []  # each check the script made, in order
    checks_made: int = 0  # how many (more than len(checks) when capped)
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    output_truncated: bool = False  # the middle of stdout or stderr was dropped (head and tail kept)
    kill: KillName | None = None
    exit_code: int | None = None
    signal: int | None = None
    verified: bool | None = None
    # The solvers that confirmed the answer in a process that ran no user code, and why a checker
    # contradicts it.
    confirmed_by: list[str] = []
    disputed: str | None = None
    model_omitted: int = 0  # model entries the host did not keep
    label: str | None = None  # "# %% candidate NAME", the dict key, the file name
    source_preview: str | None = None  # the first meaningful line of its source
    error: CandidateError | None = None  # when it failed
    # A %%z3sandbox cell's candidate: the cell's line of its line 1, how many candidates the cell held.
    cell_line: int | None = None
    cell_candidates: int = 0
