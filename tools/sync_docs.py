"""Rewrite the generated parts of README.md from their single sources.

The verdict table comes from ``verdicts.VERDICT_DOCS``, the limits table from ``limits.LIMIT_FIELDS``,
the run options and kill reasons from ``options.RUN_OPTIONS`` and ``options.KILL_REASONS``,
the isolation recipe from ``zygote/recipe.RECIPE`` and the benchmark table from
``bench/results/launch.md``: nothing in the README retypes a default.
``python tools/sync_docs.py`` rewrites; ``--check`` exits 1 when the README is stale (a test runs it).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from z3sandbox_kernel.limits import LIMIT_FIELDS
from z3sandbox_kernel.options import kills_table, options_table
from z3sandbox_kernel.verdicts import VERDICT_DOCS
from z3sandbox_kernel.zygote.recipe import recipe_table

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


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
    path = ROOT / "bench" / "results" / "launch.md"
    return path.read_text().strip() if path.exists() else "(run `make bench`)"


SECTIONS = {"verdicts": verdict_table, "limits": limits_table, "bench": bench_table,
            "options": options_table, "kills": kills_table, "recipe": recipe_table}


def render(text: str) -> str:
    for name, make in SECTIONS.items():
        pattern = re.compile(rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)", re.S)
        text = pattern.sub(lambda m, make=make: m.group(1) + make() + "\n" + m.group(2), text)  # type: ignore[misc]
    return text


def main(argv: list[str]) -> int:
    current = README.read_text()
    wanted = render(current)
    if "--check" in argv:
        if current != wanted:
            print("README.md is stale: run python tools/sync_docs.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
