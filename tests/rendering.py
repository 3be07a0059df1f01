"""The run the rendering tests render: three candidates (a verified sat with a payload, a runtime
error with a long reason, a timeout whose reason is hostile markup and escapes) at the kernel level
with one layer missing."""

from __future__ import annotations

from fractions import Fraction

from z3sandbox_kernel import CandidateResult, Limits, RunResult, Verdict

ISOLATION = {
    "level": "kernel",
    "layers": [
        {"name": "userns", "active": True, "detail": ""},
        {"name": "landlock", "active": True, "detail": "ABI 7, 12 rules"},
        {"name": "seccomp", "active": True, "detail": ""},
        {"name": "netns", "active": False, "error": "EPERM"},
    ],
}
HOSTILE = "<script>alert('x')</script>\x1b[31m"


def make_result(wall: float = 0.5) -> RunResult:
    return RunResult(
        candidates=[
            CandidateResult(
                index=0, verdict=Verdict.SAT, model={"x": 3, "r": Fraction(1, 2)},
                payload=b"\x00AB", verified=True, wall_s=wall, cpu_s=wall / 2, peak_rss_mb=41.0,
                exit_code=0,
            ),
            CandidateResult(
                index=1, verdict=Verdict.RUNTIME_ERROR, reason="ZeroDivisionError: " + "x" * 200,
                wall_s=wall, cpu_s=0.1, peak_rss_mb=40.0, exit_code=1,
            ),
            CandidateResult(
                index=2, verdict=Verdict.TIMEOUT, reason=HOSTILE, kill="wall", wall_s=wall,
            ),
        ],
        limits=Limits(timeout_s=2.0),
        isolation=ISOLATION,  # type: ignore[arg-type]
        elapsed_s=wall * 3,
    )
