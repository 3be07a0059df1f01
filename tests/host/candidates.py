"""One candidate run in a real sandbox with small limits: the helper the host's verdict and error
tests share."""

from __future__ import annotations

from z3sandbox_kernel import CandidateResult, Limits, Sandbox

QUICK = Limits(timeout_s=2, wall_s=5, cpu_s=4, memory_mb=256, output_kb=4)


def one(sandbox: Sandbox, script: str, **options: object) -> CandidateResult:
    """The one result of running ``script`` (with ``QUICK`` unless ``options`` give limits)."""
    options.setdefault("limits", QUICK)
    result = sandbox.run(script, **options)
    assert len(result) == 1
    return result[0]
