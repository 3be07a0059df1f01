"""``models=N``: up to N distinct models per sat candidate, each verified, each with its payload."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from z3sandbox_kernel import Limits, RunResult, Verdict
from z3sandbox_kernel.presentation.render import run_json

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=2, wall_s=5, cpu_s=4)
BYTES = "b = [BitVec(f'byte_{i}', 8) for i in range(2)]\ns.add(b[0] == 0x41, ULT(b[1], 3))\ns.check()\n"


def test_each_further_model_is_distinct_verified_and_saved(sandbox, tmp_path):
    result = sandbox.run("x = Int('x')\ns.add(x > 0, x < 4)\ns.check()\n", limits=QUICK, models=3)
    candidate = result[0]
    assert candidate.verdict is Verdict.SAT and candidate.verified is True
    models = [candidate.model] + [found.model for found in candidate.more_models]
    assert sorted(model["x"] for model in models) == [1, 2, 3]
    assert all(found.verified is True for found in candidate.more_models)
    again = RunResult.from_json(result.to_json())
    assert again[0].more_models == candidate.more_models
    assert "3 models: x=" in repr(result) and "model 3: x=" in repr(result)


def test_without_models_nothing_changes(kernel_sandbox):
    result = kernel_sandbox.run("x = Int('x')\ns.add(x > 0, x < 4)\ns.check()\n", limits=QUICK)
    assert result[0].more_models == [] and result[0].to_dict()["more_models"] == []
    assert "more_models" not in run_json(result)["candidates"][0]


def test_one_payload_per_model(kernel_sandbox, tmp_path):
    result = kernel_sandbox.run(BYTES, limits=QUICK, models=3)
    assert len(set(result.payloads)) == 3 and all(p[:1] == b"A" for p in result.payloads)
    written = result.save_payloads(tmp_path)
    assert len(written) == 3 and any("model-2" in path.name for path in written)


def test_unverified_runs_keep_the_candidates_word(kernel_sandbox):
    result = kernel_sandbox.run(BYTES, limits=QUICK, models=2, verify=False)
    assert [found.verified for found in result[0].more_models] == [None]


@pytest.mark.parametrize("models", [0, -1, 1.5, "2", True])
def test_bad_model_counts_are_refused(kernel_sandbox, models):
    with pytest.raises(ValueError, match="models must be a positive whole number"):
        kernel_sandbox.run("s.check()\n", models=models)


def test_the_cli_writes_a_payload_per_model_and_refuses_bad_counts(tmp_path):
    (tmp_path / "bytes.py").write_text(BYTES)

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "z3sandbox_kernel", "run", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=100, env=dict(os.environ))

    done = cli("--models", "3", "--json", "--payload-dir", "out", "bytes.py")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["more_models"]) == 2
    assert sorted(os.listdir(tmp_path / "out")) == [
        "candidate-0-model-2.bin", "candidate-0-model-3.bin", "candidate-0.bin"]
    for bad in ("0", "x"):
        refused = cli("--models", bad, "bytes.py")
        assert refused.returncode == 2 and "--models" in refused.stderr


def test_a_forged_further_model_fails_verification_and_gives_no_payload(kernel_sandbox):
    forge = ("import sys\nb = BitVec('byte_0', 8)\ns.add(b == 0x41)\ns.check()\n"
             "forged = {'model': {'byte_0': 66}, 'byte_constants': [], 'byte_runs': [[0, '42']],"
             " 'model_smt2': 'byte_0\\x00#x42\\x00'}\n"
             "sys.modules['z3sandbox_kernel.child.more_models'].find = lambda *args: [forged]\n")
    candidate = kernel_sandbox.run(forge, limits=QUICK, models=2)[0]
    assert candidate.verified is True and candidate.payload == b"A"
    assert [found.verified for found in candidate.more_models] == [False]
    assert candidate.named_payloads() == [("", b"A")]
