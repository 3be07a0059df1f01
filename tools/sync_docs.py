"""Rewrite the generated parts of the docs pages, and the generated files, from their single sources.

A generated part sits between ``<!-- BEGIN name -->`` and ``<!-- END name -->`` in exactly one page
(README.md, SECURITY.md or docs/*.md).  The verdict table (docs/verdicts.md) comes from
``verdicts.VERDICT_DOCS``, the limits table (docs/limits.md) from ``limits.LIMIT_FIELDS``, the run
options (docs/notebook.md) and every ``RunOptions`` field (docs/api.md) from ``options.RunOptions``,
the kill reasons (docs/verdicts.md) from ``roles.Kill.description``, the isolation recipe
(docs/how-it-works.md) from ``zygote/recipe.RECIPE`` and the benchmark table (docs/benchmarks.md)
from ``bench/results/launch.md``: no page retypes a default.  The run document's JSON Schema
(labextension/src/run-schema.generated.json, from which the labextension's build makes its
TypeScript types) comes from ``protocol/document.py``'s types; the schemas of a saved result
(``RunResult.to_json``) and of a record's candidate line (schemas/*.schema.json) from
``contracts/record.py``'s, and the MCP tool's output schema (schemas/mcp-output.schema.json) from
``agents/mcp_schema.py``'s.  The kernel's documents of a few runs the notebooks do not show
(labextension/test/documents.generated.json, tools/document_examples.py) test the labextension's
upgrade of older documents.
``python tools/sync_docs.py`` rewrites; ``--check`` exits 1 when a page is stale or a part
is not in exactly one page (a test runs it).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from document_examples import example_documents  # tools/, beside this script

from z3sandbox_kernel.agents.mcp_schema import output_schema
from z3sandbox_kernel.contracts.limits import LIMIT_FIELDS
from z3sandbox_kernel.contracts.options import fields_table, kills_table, options_table
from z3sandbox_kernel.contracts.record import CandidateLine, SavedRun, record_schema
from z3sandbox_kernel.contracts.vote import DISPUTED, PROVE_WORDS
from z3sandbox_kernel.presentation.phrases import REASON_WIDTH, TABLE_COLUMNS
from z3sandbox_kernel.presentation.reasons import NOT_CHECKED
from z3sandbox_kernel.presentation.row_details import CLAIMED, NO_PAYLOAD, SHOWN_STYLES, STREAM_CUT
from z3sandbox_kernel.protocol.document import run_schema
from z3sandbox_kernel.protocol.messages import UNVERIFIED_REASON
from z3sandbox_kernel.protocol.verdicts import VERDICT_DOCS
from z3sandbox_kernel.zygote.recipe import recipe_table

ROOT = Path(__file__).resolve().parent.parent


def pages() -> list[Path]:
    """Every page that may hold a generated part."""
    return [ROOT / "README.md", ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md"))]


def verdict_table() -> str:
    rows = ["| verdict | when | `reason` holds |", "|---|---|---|"]
    rows += [f"| `{verdict.value}` | {when} | {reason} |" for verdict, (when, reason) in VERDICT_DOCS.items()]
    return "\n".join(rows)


def limits_table() -> str:
    rows = ["| `Limits` field | magic / CLI flag | default | meaning |", "|---|---|---|---|"]
    for spec in LIMIT_FIELDS:
        unit = spec.metadata["unit"]
        default = f"{spec.default:g}" if isinstance(spec.default, float) else str(spec.default)
        rows.append(f"| `{spec.name}` | `{spec.metadata['flag']}` | {default}{(' ' + unit) if unit else ''} "
                    f"| {spec.metadata['help']} |")
    return "\n".join(rows)


def bench_table() -> str:
    """launch.md with its headings one level down: on its page it is a section, under the page's title."""
    path = ROOT / "bench" / "results" / "launch.md"
    text = path.read_text().strip() if path.exists() else "(run `make bench`)"
    return re.sub(r"^(#+) ", r"#\1 ", text, flags=re.M)


SECTIONS: dict[str, Callable[[], str]] = {
    "verdicts": verdict_table, "limits": limits_table, "bench": bench_table,
    "options": options_table, "kills": kills_table, "recipe": recipe_table, "run-options": fields_table,
}


# Whole files, each made from its source (checked in: the labextension's build needs no Python).
FILES: dict[Path, Callable[[], str]] = {
    ROOT / "labextension" / "src" / "run-schema.generated.json":
        lambda: json.dumps(run_schema(), indent=2, ensure_ascii=False) + "\n",
    ROOT / "labextension" / "src" / "presentation.generated.json":
        lambda: json.dumps(presentation_words(), indent=2, ensure_ascii=False) + "\n",
    ROOT / "labextension" / "test" / "documents.generated.json":
        lambda: json.dumps(example_documents(), indent=1, ensure_ascii=False) + "\n",
    ROOT / "schemas" / "result.schema.json":
        lambda: json.dumps(record_schema(SavedRun), indent=2, ensure_ascii=False) + "\n",
    ROOT / "schemas" / "record-candidate.schema.json":
        lambda: json.dumps(record_schema(CandidateLine), indent=2, ensure_ascii=False) + "\n",
    ROOT / "schemas" / "mcp-output.schema.json":
        lambda: json.dumps(output_schema(), indent=2, ensure_ascii=False) + "\n",
}


def presentation_words() -> dict[str, object]:
    """What the labextension needs of the Python presentation to draw what the document does not
    spell out (the badge style of each shown label), and to upgrade a document older than the
    fields it draws (labextension/src/upgrade.ts): each limit's name, shown name and unit in the
    model's order, the table's columns, a reason's room, and the words a row is said in."""
    return {"$comment": "generated from z3sandbox_kernel/presentation by python tools/sync_docs.py",
            "shown_styles": SHOWN_STYLES,
            "limits": [[spec.name, spec.metadata["flag"].lstrip("-"), spec.metadata["unit"]]
                       for spec in LIMIT_FIELDS],
            "columns": [{"key": c.key, "title": c.title, **({"unit": c.unit} if c.unit else {})}
                        for c in TABLE_COLUMNS],
            "reason_width": REASON_WIDTH, "prove_words": PROVE_WORDS, "no_payload": NO_PAYLOAD,
            "disputed": DISPUTED, "not_checked": NOT_CHECKED, "unverified_reason": UNVERIFIED_REASON,
            "claimed": CLAIMED, "stream_cut": STREAM_CUT}


def render(text: str) -> str:
    for name, make in SECTIONS.items():
        pattern = re.compile(rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)", re.S)
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + "\n" + m.group(2), text)  # type: ignore[misc]
    return text


def misplaced(texts: dict[Path, str]) -> list[str]:
    """A part that no page holds, or more than one, is a problem: a reader would miss it or find two."""
    problems = []
    for name in SECTIONS:
        holders = [path.name for path, text in texts.items() if f"<!-- BEGIN {name} -->" in text]
        if len(holders) != 1:
            problems.append(f"the generated part {name!r} is in {len(holders)} pages ({', '.join(holders)})")
    return problems


def main(argv: list[str]) -> int:
    texts = {path: path.read_text() for path in pages()}
    problems = misplaced(texts)
    wanted = {path: render(text) for path, text in texts.items()}
    wanted.update({path: make() for path, make in FILES.items()})
    stale = [path for path, text in wanted.items() if not path.exists() or path.read_text() != text]
    if "--check" in argv:
        problems += [f"{path.relative_to(ROOT)} is stale: run python tools/sync_docs.py" for path in stale]
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(wanted[path])
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
