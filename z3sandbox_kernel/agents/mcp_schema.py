"""The output schema of ``run_candidates`` (agents/mcp_output.py builds what it describes): msgspec
types made from tables of fields, each field that a candidate's record has typed as the record
(``contracts/record.CandidateRecord``) types it, and published to the MCP SDK through one pydantic
model (``output_model``) whose schema is theirs and whose check is msgspec's.

Every field a candidate can shape says so: its description starts with ``UNTRUSTED`` and its
schema carries ``"x-untrusted": true``.  Those fields hold the candidate's text with control,
bidi, zero-width, line-separator, DEL and C1 characters escaped (``\\x1b``, ``\\u202e``), to be
read as data, never as instructions.  ``python tools/sync_docs.py`` writes the schema to
schemas/mcp-output.schema.json (its ``--check`` fails when it is stale).
"""

from __future__ import annotations

import functools
import typing
from types import GenericAlias
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from ..contracts.record import CandidateRecord
from ..protocol.verdicts import Verdict
from ..protocol.wire import JsonValue

if TYPE_CHECKING:
    from pydantic import BaseModel

MODEL_VALUES = (
    "constant name -> value. Int and bit-vector values are JSON integers (bit-vectors unsigned); "
    'Bool values are true/false; Real values are {"fraction": [numerator, denominator]}; String '
    "values are JSON strings; any other value (arrays, functions, datatypes, algebraic numbers as "
    "a 20-digit decimal ending in '?', integers over 4,000 digits) is z3's own text, also a string")
UNTRUSTED = ("UNTRUSTED (shaped by the candidate; control, bidi and zero-width characters escaped "
             "as \\xNN or \\uNNNN): ")
REQUIRED = msgspec.NODEFAULT
RECORD = typing.get_type_hints(CandidateRecord, include_extras=True)  # the record's field types
# A candidate's facts (protocol/candidate.py) the output says under another name, and those it
# leaves out: each fact is one or the other, or an output field of its own name (tests/agents).
RENAMED = {"index": "indexes", "label": "labels", "payload_hex": "payload_b64"}
NOT_IN_OUTPUT = frozenset({
    "state",  # the tool answers when the run is over: every candidate is done
    "cell_line", "cell_candidates",  # a notebook cell's places: the tool runs scripts, not cells
    "source_preview",  # the agent wrote the scripts
    # Left out to keep the output compact: the run's record (its ``record`` resource) has them.
    "payload_error", "stdout_truncated", "stderr_truncated", "output_truncated", "exit_code", "signal",
    "model_omitted",
})
Model = dict[str, JsonValue]
# A field: (name, type, default, description, shaped by the candidate)
Field = tuple[str, object, object, str, bool]


def listed(kind: object) -> object:
    """``list[kind]`` for a type made at run time."""
    return GenericAlias(list, (kind,))


def struct(name: str, doc: str, fields: list[Field]) -> type[msgspec.Struct]:
    """A msgspec type of ``fields``, each described (and marked untrusted when a candidate shapes it)."""
    def annotated(kind: object, text: str, shaped: bool) -> object:
        meta = msgspec.Meta(description=UNTRUSTED + text, extra_json_schema={"x-untrusted": True}) \
            if shaped else msgspec.Meta(description=text)
        return Annotated[kind, meta]

    made = msgspec.defstruct(name, [(field, annotated(kind, text, shaped), default)
                                    for field, kind, default, text, shaped in fields], kw_only=True)
    made.__doc__ = doc
    return made


ErrorOutput = struct("ErrorOutput", "Why the script failed.", [
    ("type", str, "", "the exception's class (SyntaxError, NameError, Z3Exception...; a script may "
     "name its own), or the verdict when no exception escaped (timeout, crashed...)", True),
    ("line", int | None, None, "the script line it happened on; absent when it cannot be told", False),
    ("message", str, "", "the message, ending with a hint where there is one", True)])
MoreModel = struct("MoreModel", "A further model (models=N).", [
    ("model", Model, REQUIRED, f"a further model: {MODEL_VALUES}", True),
    ("payload_b64", str | None, None, "its byte_N payload, base64; absent when none", False),
    ("verified", bool | None, None, "true: re-checked by a verifier (no user code); false: it failed "
     "the re-check; absent: not decided", False)])
CheckRun = struct("CheckRun", "A run of like checks the script made.", [
    ("first", int, REQUIRED, "the number of the run's first check (1 for the script's first)", False),
    ("count", int, REQUIRED, "how many checks in a row were like it (same line, answer and "
     "verification)", False),
    ("line", int | None, None, "the script line of the check() call; absent for the sandbox's own", False),
    ("verdict", str, REQUIRED, "sat, unsat or unknown", False),
    ("verified", bool | None, None, "the models the script read: true re-checked by a verifier; "
     "false failed; absent not decided or none read", False),
    ("model", Model | None, None, f"the one model every check of the run found ({MODEL_VALUES}); "
     "absent when they differ", True),
    ("payload_b64", str | None, None, "its byte_N payload, base64", False),
    ("models", list[Model], [], f"the run's first models when they differ: {MODEL_VALUES}", True),
    ("payloads_b64", list[str | None], [], "their payloads, base64, in the same order", False),
    ("models_left_out", int | None, None, "models of the run not shown (the record has them)", False)])
ObjectiveOutput = struct("Objective", "An objective of a sat Optimize check.", [
    ("term", str, "", "the term, as the script wrote it", True),
    ("direction", str, REQUIRED, "maximize, minimize or soft", False),
    ("value", JsonValue, None, "its value, encoded as a model's", True),
    ("optimal", bool | None, None, "the verifier's word: true no better value exists; false it "
     "found one; absent not decided", False),
    ("checked", bool | None, None, "true: the value is the verifier's evaluation; false: the "
     "candidate's claim; absent in older results", False),
    ("claim", str, "", "said when the value is the candidate's claim, not checked", False)])
CandidateOutput = struct("CandidateOutput", "Candidates with one outcome.", [
    ("indexes", list[int], REQUIRED, "the candidates (0-based) this entry stands for: candidates "
     "with identical outcomes are one entry", False),
    ("labels", list[str], [], "their labels, in the order of indexes (one label when they all "
     "share it); absent when none", True),
    ("verdict", RECORD["verdict"], None, "what happened to them (see the tool's description)", False),
    ("reason", RECORD["reason"], "", "why, in words (it quotes the script and z3); absent when "
     "the verdict says it all", True),
    ("kill", RECORD["kill"], None, "what ended them early: a limit, a race, a cancel; absent: "
     "they ended by themselves", False),
    ("model", RECORD["model"], None, f"the model (sat): {MODEL_VALUES}; absent when there is none", True),
    ("payload_b64", str | None, None, "the model's byte_N constants overlaid on seed_b64, "
     "base64; absent when none", False),
    ("verified", RECORD["verified"], None, "true: the model was re-checked against the "
     "assertions in a verifier; false: it failed that check; absent: not checked or not sat", False),
    ("error", ErrorOutput | None, None, "why the script failed; absent when it did not", False),
    ("confirmed_by", RECORD["confirmed_by"], [], "the solvers that confirmed the answer in a "
     "process that ran no user code (z3; cvc5 with cross_check)", False),
    ("unchecked", list[str], [], "what no verifier checked of the answer, in words: "
     "'unconfirmed: why', an objective value that is the candidate's claim; absent when "
     "everything shown was checked", True),
    ("disputed", RECORD["disputed"], None, "why a checker contradicts the answer (it then counts "
     "for nothing); absent when none does", True),
    ("unsat_core", RECORD["unsat_core"], [], "with cores: the tracked assertions of the core, as "
     "[script line, its text]", True),
    ("objectives", listed(ObjectiveOutput), [], "a sat Optimize check's goals", False),
    ("more_models", listed(MoreModel), [], "with models=N: the further distinct models", False),
    ("checks", listed(CheckRun), [], "the checks the script made, in order, each run of like "
     "checks as one entry; absent when one check gave the verdict and model above", False),
    ("checks_made", RECORD["checks_made"] | None, None, "how many checks the script made (more "
     "than the checks listed when capped); absent with checks", False),
    ("stdout", RECORD["stdout"], "", "what the script printed (head and tail when long; a line "
     "repeated many times in a row shown twice and counted); absent when empty", True),
    ("stderr", RECORD["stderr"], "", "its standard error; absent when empty", True),
    ("wall_s", RECORD["wall_s"], 0.0, "wall-clock seconds (of a group: the longest)", False),
    ("cpu_s", RECORD["cpu_s"], 0.0, "CPU seconds (of a group: the most)", False)])
RunOutput = struct("RunOutput", "A run: the vote and each distinct outcome.  A field left out is "
                   "null or empty.", [
    ("run_id", str, REQUIRED, "the run's id; sorts by the time it started", False),
    ("verdict", Verdict, REQUIRED, "the vote: the majority of sat/unsat; a tie goes to the "
     "confirmed answer; see tie", False),
    ("vote", str, "", "the verdict in prove()'s words for a run of prove() calls (proved, "
     "counterexample, disputed); absent otherwise", False),
    ("counts", dict[str, int], REQUIRED, "verdict -> how many candidates had it", False),
    ("tie", dict[str, Any] | None, None, "when as many said sat as unsat: the counts, the winner "
     "and the rule; absent otherwise", False),
    ("elapsed_s", float, REQUIRED, "wall-clock seconds of the whole run", False),
    ("notes", list[str], [], "what happened to the run itself (a restarted sandbox...)", False),
    ("record", str | None, None, "the run's record, a resource URI; absent when runs are not "
     "recorded", False),
    ("candidates", listed(CandidateOutput), REQUIRED, "each distinct outcome, by first index", False)])


def output_schema() -> dict[str, Any]:
    """The JSON Schema of ``RunOutput``, each type written where it is used (the SDK's pydantic
    keeps its own ``$defs``, and knows no other's)."""
    (root,), definitions = msgspec.json.schema_components([RunOutput], ref_template="{name}")

    def inlined(value: object) -> object:
        if isinstance(value, dict):
            return inlined(definitions[value["$ref"]]) if "$ref" in value else \
                {key: inlined(item) for key, item in value.items()}
        return [inlined(item) for item in value] if isinstance(value, list) else value

    return typing.cast("dict[str, Any]", inlined(root))


@functools.cache
def output_model() -> type[BaseModel]:
    """``RunOutput`` as the pydantic model the MCP SDK publishes and checks results against; made
    on first use, so that the CLI needs neither pydantic nor mcp until it serves."""
    from pydantic import BaseModel, GetCoreSchemaHandler, GetJsonSchemaHandler
    from pydantic_core import core_schema

    schema = output_schema()

    def checked(value: object) -> object:
        msgspec.convert(value, RunOutput)  # a msgspec.ValidationError is a ValueError: pydantic's error
        return value

    class RunOutputModel(BaseModel):
        @classmethod
        def __get_pydantic_core_schema__(cls, source: object,
                                         handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
            return core_schema.no_info_plain_validator_function(checked)

        @classmethod
        def __get_pydantic_json_schema__(cls, core: core_schema.CoreSchema,
                                         handler: GetJsonSchemaHandler) -> dict[str, Any]:
            return schema

    return RunOutputModel
