"""The differential fuzzer at scale (issue 37): generated SMT-LIB and Z3Py scripts run plainly and in
the sandbox, K at a time; the same generator and judge as tests/trust (its CI-sized run).

    python bench/differential.py [--cases 20000] [--k 16] [--python-share 0.2] [--seed 0]

For every script: the plain answer (``z3 file.smt2``, ``python script.py``), the sandbox's verdict,
whether it was confirmed, and, for SMT-LIB, whether it printed what z3's own front end prints.
Counted: confirmed verdicts that are not z3's answer, true answers disputed or called invalid, the
sandbox's own failures, and output that differs.  Every one is a finding: the run writes each such
script to ``results/differential-findings/`` and its counts to ``results/differential.json`` and
``.md``.  Cases are drawn from hypothesis strategies, derandomized by ``--seed``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.trust.fuzz import (  # noqa: E402
    judged,
    plain_python,
    plain_smt2,
    python_script,
    smt2_script,
)
from z3sandbox_kernel import Limits, Sandbox  # noqa: E402

LIMITS = Limits(timeout_s=10, wall_s=30, cpu_s=30)


def run(cases: int, k: int, python_share: float, seed_value: int, out: Path) -> dict[str, object]:
    counts: Counter[str] = Counter()
    findings: list[dict[str, str]] = []
    sandbox = Sandbox()
    started = time.monotonic()

    @seed(seed_value)
    @settings(max_examples=max(1, cases // k), deadline=None, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def batch(data: st.DataObject) -> None:
        language = "python" if data.draw(st.integers(0, 99)) < python_share * 100 else "smt2"
        strategy = python_script() if language == "python" else smt2_script()
        scripts = data.draw(st.lists(strategy, min_size=k, max_size=k))
        plains = plain_python(scripts) if language == "python" else plain_smt2(scripts)
        result = sandbox.run(scripts, language=language, limits=LIMITS)
        for text, plain, candidate in zip(scripts, plains, result, strict=True):
            counts[f"{language} cases"] += 1
            counts[f"{language} {plain.answer} -> {candidate.verdict.value if candidate.verdict else None}"
                   f"{' confirmed' if candidate.confirmed_by else ''}"] += 1
            problem = judged(plain, candidate)
            if language == "smt2" and candidate.stdout != plain.front_end:
                problem = problem or "output differs from z3's front end"
                counts["smt2 output differs"] += 1
            if problem:
                counts["findings"] += 1
                findings.append({"language": language, "problem": problem, "script": text})
        done = counts["smt2 cases"] + counts["python cases"]
        if done % (k * 50) == 0:
            print(f"{done} cases, {counts['findings']} findings, "
                  f"{time.monotonic() - started:.0f} s", flush=True)

    try:
        batch()
    finally:
        sandbox.close()
    folder = out / "differential-findings"
    folder.mkdir(parents=True, exist_ok=True)
    for number, finding in enumerate(findings):
        suffix = "smt2" if finding["language"] == "smt2" else "py"
        (folder / f"{number:04d}.{suffix}").write_text(f"; {finding['problem']}\n{finding['script']}")
    return {"cases": counts["smt2 cases"] + counts["python cases"], "k": k, "seed": seed_value,
            "seconds": round(time.monotonic() - started, 1), "load": os.getloadavg(),
            "counts": dict(sorted(counts.items())), "findings": len(findings)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--k", type=int, default=16)  # more makes examples hypothesis refuses
    parser.add_argument("--python-share", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    summary = run(args.cases, args.k, args.python_share, args.seed, args.out)
    (args.out / "differential.json").write_text(json.dumps(summary, indent=2) + "\n")
    counts = summary["counts"]
    assert isinstance(counts, dict)
    lines = [f"# Differential fuzzer: {summary['cases']:,} cases (bench/differential.py)", "",
             f"{summary['seconds']} s, K = {summary['k']}, seed {summary['seed']}, load at end "
             f"{summary['load']}.  Findings (a confirmed verdict that is not z3's answer, a true "
             f"answer disputed or called invalid, the sandbox's own failure, SMT-LIB output that "
             f"differs from z3's front end): **{summary['findings']}**.", "",
             "| plain answer -> sandbox verdict | cases |", "|---|---|"]
    lines += [f"| {key} | {value:,} |" for key, value in counts.items()]
    (args.out / "differential.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
