"""The run document (protocol/document.py): one schema, generated from the Python types, that every
document the kernel writes validates against, live or final, from real runs and the saved notebooks;
and a result prints the same whatever was imported before it."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from z3sandbox_kernel import CandidateResult, RunResult, Sandbox
from z3sandbox_kernel.presentation.live import live_mimebundle
from z3sandbox_kernel.presentation.render import NOT_IN_DOCUMENT, run_mimebundle
from z3sandbox_kernel.protocol.document import MIME_TYPE, DocumentCandidate, RunMetadata, run_schema

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "labextension" / "src" / "run-schema.generated.json"
SCHEMA = run_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
METADATA = jsonschema.Draft202012Validator({**SCHEMA["$defs"]["RunMetadata"], "$defs": SCHEMA["$defs"]})

SCRIPTS = [
    "from z3 import *\nx = Int('x')\ns = Solver()\ns.add(x > 2, x < 5)\nprint(s.check())\nprint(s.model())\n",
    "from z3 import *\nx = Int('x')\ns = Solver()\ns.set(unsat_core=True)\n"
    "s.assert_and_track(x > 2, 'a1')\ns.assert_and_track(x < 1, 'a2')\nprint(s.check())\n",
    "from z3 import *\nx, y = Ints('x y')\no = Optimize()\no.add(x + y < 14, x > 0, y > 0)\n"
    "o.maximize(x + y)\nprint(o.check())\n",
    "from z3 import *\nb = [BitVec(f'byte_{i}', 8) for i in range(2)]\ns = Solver()\n"
    "s.add(b[0] == 0x41, b[1] > 0x40)\nprint(s.check())\n",
    "this is not python(",
    "raise ValueError('no')\n",
]


def invalid(document: object, validator: jsonschema.Draft202012Validator = VALIDATOR) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
            for error in validator.iter_errors(json.loads(json.dumps(document)))]


def test_the_generated_schema_file_is_the_python_types_schema() -> None:
    """Stale: run python tools/sync_docs.py (the labextension's types are made from this file)."""
    assert json.loads(GENERATED.read_text()) == SCHEMA
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_every_candidate_field_is_in_the_document_or_left_out_on_purpose() -> None:
    """A field added to CandidateResult must be declared in DocumentCandidate (and so reach the
    schema and the labextension's types) or be left out by name in render.NOT_IN_DOCUMENT."""
    fields = {field.name for field in dataclasses.fields(CandidateResult)} - {"payload"}
    declared = set(DocumentCandidate.__struct_fields__)
    forgotten = fields - NOT_IN_DOCUMENT - declared
    assert forgotten == set(), ("declare these in protocol/candidate.py's CandidateFacts (or, left out of "
                                "the record, in DocumentCandidate), then run python tools/sync_docs.py")
    assert NOT_IN_DOCUMENT & declared == set()


@pytest.fixture(scope="module")
def real_run() -> RunResult:
    with Sandbox() as sandbox:
        return sandbox.run(SCRIPTS, models=2, seed=b"\x00\x00\x00")


def test_real_runs_documents_validate_final_and_live(real_run: RunResult) -> None:
    data, metadata = run_mimebundle(real_run)
    assert invalid(data[MIME_TYPE]) == []
    assert invalid(metadata[MIME_TYPE], METADATA) == []
    kinds = {key for c in data[MIME_TYPE]["candidates"] for key in c}
    assert {"objectives", "more_models", "error", "label"} <= kinds  # the optional parts were there
    for candidate in real_run:  # each one shown alone
        alone, _ = candidate._repr_mimebundle_()
        assert invalid(alone[MIME_TYPE]) == []
    going = dataclasses.replace(real_run, candidates=[
        *real_run.candidates[:2], CandidateResult(index=2, verdict=None, state="running"),
        CandidateResult(index=3, verdict=None, state="queued")])
    live, live_metadata = live_mimebundle(going, changed=[1, 2], running={2: 0.5})
    live[MIME_TYPE]["control"] = "display-id"  # as jupyter/table.py adds it
    assert invalid(live[MIME_TYPE]) == []
    assert invalid(live_metadata[MIME_TYPE], METADATA) == []


def test_a_field_the_schema_does_not_declare_fails_validation(real_run: RunResult) -> None:
    document = run_mimebundle(real_run)[0][MIME_TYPE]
    document["candidates"][0]["not_a_field"] = ["z3"]
    assert invalid(document) != []


def saved_documents() -> list[tuple[str, dict[str, Any], RunMetadata]]:
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            for output in cell.get("outputs", ()):
                if MIME_TYPE in output.get("data", {}):
                    found.append((path.name, output["data"][MIME_TYPE],
                                  output.get("metadata", {}).get(MIME_TYPE, {})))
    return found


def test_every_saved_notebooks_document_validates() -> None:
    documents = saved_documents()
    assert len({name for name, _, _ in documents}) >= 5
    problems = {f"{name} #{n}": errors for n, (name, document, metadata) in enumerate(documents)
                if (errors := invalid(document) + invalid(metadata, METADATA))}
    assert problems == {}


SHOW = """
import json, sys
{imports}
from z3sandbox_kernel.contracts.results import RunResult
result = RunResult.from_json(sys.stdin.read())
loaded = "z3sandbox_kernel.presentation" in sys.modules
shown = [repr(result), result._repr_mimebundle_(), repr(result[0]), result[0]._repr_mimebundle_(),
         result.table_rows()]
print(json.dumps([loaded, shown], default=str))
"""


def shown_after(imports: str, saved: str) -> tuple[bool, Any]:
    done = subprocess.run([sys.executable, "-c", SHOW.format(imports=imports)], input=saved,
                          capture_output=True, text=True, check=True)
    loaded, shown = json.loads(done.stdout)
    return loaded, shown


def test_a_result_prints_the_same_whatever_was_imported_before(real_run: RunResult) -> None:
    saved = real_run.to_json()
    alone_loaded, alone = shown_after("", saved)
    assert not alone_loaded  # importing results.py loaded no presentation: showing one did
    everything = "import z3sandbox_kernel.jupyter.magic, z3sandbox_kernel.cli, z3sandbox_kernel.agents.repair"
    _, after_everything = shown_after(everything, saved)
    assert alone == after_everything
    assert alone[0].startswith("RunResult:") and MIME_TYPE in alone[1][0]
