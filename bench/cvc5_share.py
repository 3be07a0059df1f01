"""How often cvc5 confirms a decisive answer, and the CPU a cross-check adds to the verifier.

    python bench/cvc5_share.py [--corpus ../shared/corpus/z3py] [--out bench/results]

A process prepared as the zygote prepares itself (``harness.prepare()``) forks, per model of the
corpus, a child that runs the script as a candidate (``harness.run_candidate``, stdout dropped)
and reports; for every sat or unsat report with assertions, a fresh fork then does what a verifier
does (child/confirm.py): the z3 confirmation alone, then ``import cvc5`` (a verifier never has it
loaded: each one that is asked pays the import), then cvc5's check of the same text.  Each is
timed with the fork's own CPU clock.  The outcome of the cross-check is counted as agree, unparsed
(cvc5 cannot read the text: z3-only operators), timeout / unknown, or disagree.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from z3sandbox_kernel.child import confirm, cross_check, harness
from z3sandbox_kernel.protocol import Limits, VerifyRequest

CANDIDATE_WALL_S = 60
VERIFY_S = 10.0


def in_fork(work: object, wall_s: float) -> object:
    """``work()``'s JSON-able answer, computed in a fork of this prepared process (None if it
    died or ran out of ``wall_s``)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.chdir(tempfile.mkdtemp())
            resource.setrlimit(resource.RLIMIT_CPU, (int(wall_s), int(wall_s) + 1))
            os.write(write, json.dumps(work()).encode())
        finally:
            os._exit(0)
    os.close(write)
    data = b""
    deadline = time.monotonic() + wall_s
    os.set_blocking(read, False)
    while time.monotonic() < deadline:
        try:
            chunk = os.read(read, 1 << 20)
        except BlockingIOError:
            time.sleep(0.01)
            continue
        if not chunk:
            break
        data += chunk
    else:
        os.kill(pid, 9)
    os.waitpid(pid, 0)
    os.close(read)
    return json.loads(data) if data else None


def candidate_report(script: str) -> object:
    return in_fork(lambda: harness.run_candidate(script, language="python", timeout_s=VERIFY_S,
                                                 random_seed=None, cores=False), CANDIDATE_WALL_S)


def verifier_costs(report: dict[str, Any]) -> object:
    def work() -> dict[str, Any]:
        outcome = report["outcome"]
        request: VerifyRequest = {"assertions_smt2": report["assertions_smt2"], "timeout_s": VERIFY_S,
                                  "model_smt2": report.get("model_smt2") or [], "outcome": outcome,
                                  "limits": Limits(verify_s=VERIFY_S)}
        started = time.process_time()
        said = confirm.verify_request(request)
        z3_cpu = time.process_time() - started
        started = time.process_time()
        import cvc5  # noqa: F401  (what a verifier asked for a cross-check pays first)

        import_cpu = time.process_time() - started
        started = time.process_time()
        if outcome == "unsat":
            answer = cross_check.unsat_holds(report["assertions_smt2"], VERIFY_S)
        else:
            pairs = [(name, value) for name, value in report.get("model_smt2") or []]
            answer = cross_check.model_holds(report["assertions_smt2"], pairs, VERIFY_S)
        check_cpu = time.process_time() - started
        kind = ("agree" if answer.agrees else "disagree" if answer.agrees is False
                else "unparsed" if "parse" in answer.detail else "timeout/unknown")
        return {"z3_confirmed": bool(said.get("confirmed_by")), "kind": kind, "detail": answer.detail,
                "z3_cpu_s": z3_cpu, "import_cpu_s": import_cpu, "cvc5_cpu_s": check_cpu}
    return in_fork(work, 3 * VERIFY_S)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared/corpus/z3py")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = parser.parse_args()
    harness.prepare()
    rows: list[dict[str, Any]] = []
    for path in sorted(args.corpus.glob("*.py")):
        report = candidate_report(path.read_text())
        outcome = (report or {}).get("outcome")
        row: dict[str, Any] = {"model": path.stem, "outcome": outcome}
        if outcome in ("sat", "unsat") and report.get("assertions_smt2"):
            row.update(verifier_costs(report) or {"kind": "verifier died"})
        rows.append(row)
        print(f"{path.stem:40} {outcome or '-':10} {row.get('kind', '-'):16} {row.get('detail', '')[:60]}",
              file=sys.stderr)
    checked = [row for row in rows if "kind" in row]
    kinds = Counter(row["kind"] for row in checked)
    cpu = {name: statistics.median(row[name] for row in checked if name in row)
           for name in ("z3_cpu_s", "import_cpu_s", "cvc5_cpu_s") if any(name in row for row in checked)}
    summary = {"models": len(rows), "decisive_with_assertions": len(checked),
               "outcomes": dict(Counter(str(row["outcome"]) for row in rows)),
               "cross_check": dict(kinds), "median_cpu_s": cpu,
               "mean_cvc5_cpu_s": statistics.mean(row["cvc5_cpu_s"] for row in checked if "cvc5_cpu_s" in row)
               if checked else 0.0}
    print(json.dumps(summary, indent=2))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cvc5_share.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
