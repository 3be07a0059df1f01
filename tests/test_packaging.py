"""What the package loads, where its version comes from, and how a missing extra is treated.

A candidate is forked from the zygote, so it holds every module the zygote imported: the host side
(asyncio, ssl, the scheduler, Jupyter) must not be among them.  The install itself (sdist, wheel, no
npm) is checked by tools/check-install.sh, a step of ``make test``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from z3sandbox_kernel import Limits, Sandbox, Verdict

ROOT = Path(__file__).resolve().parent.parent
LIST_MODULES = "import json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
HOST_SIDE = ("z3sandbox_kernel.host", "z3sandbox_kernel.jupyter", "asyncio", "ssl")


def _host_side(modules: list[str]) -> list[str]:
    prefixes = tuple(f"{name}." for name in HOST_SIDE)
    return [name for name in modules if name in HOST_SIDE or name.startswith(prefixes)]


def test_a_candidate_holds_nothing_of_the_host_side(sandbox: Sandbox) -> None:
    result = sandbox.run(LIST_MODULES, limits=Limits(wall_s=10))
    candidate = result[0]
    assert candidate.verdict == Verdict.NO_CHECK, candidate.reason
    modules = json.loads(candidate.stdout)
    assert "z3" in modules and "z3sandbox_kernel.child.harness" in modules  # it is the real list
    assert _host_side(modules) == []


def test_importing_the_package_loads_no_host_side_until_a_name_is_used() -> None:
    script = ("import json, sys\nimport z3sandbox_kernel\nbefore = sorted(sys.modules)\n"
              "from z3sandbox_kernel import run, Sandbox, Limits, Verdict, RunResult, CandidateResult\n"
              "print(json.dumps([before, sorted(sys.modules), run.__module__, Sandbox.__module__]))\n")
    out = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True, text=True,
                         timeout=60, check=True)
    before, after, run_module, sandbox_module = json.loads(out.stdout)
    assert _host_side(before) == []
    assert "z3sandbox_kernel.host.sandbox" in after
    assert run_module == sandbox_module == "z3sandbox_kernel.host.sandbox"


def test_an_unknown_name_is_an_attribute_error() -> None:
    import z3sandbox_kernel

    with pytest.raises(AttributeError, match="no_such_name"):
        z3sandbox_kernel.no_such_name  # noqa: B018
    assert set(z3sandbox_kernel.__all__) <= set(dir(z3sandbox_kernel))


def test_one_version_for_the_python_package_and_the_labextension() -> None:
    import z3sandbox_kernel

    package_json = json.loads((ROOT / "labextension" / "package.json").read_text())
    assert z3sandbox_kernel.__version__ == package_json["version"]
    assert 'source = "nodejs"' in (ROOT / "pyproject.toml").read_text()


@pytest.mark.parametrize(("ci", "outcome"), [("true", "1 error"), ("", "1 skipped")])
def test_a_missing_extra_fails_in_ci_and_skips_elsewhere(tmp_path: Path, ci: str, outcome: str) -> None:
    suite = tmp_path / "test_needs_extra.py"
    suite.write_text("from tests.conftest import require_extra\n"
                     "require_extra('z3sandbox_no_such_module', 'dask')\n"
                     "def test_never_runs() -> None:\n    pass\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "CI": ci}
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-c", "/dev/null",
                          "--rootdir", str(tmp_path), str(suite)],
                         capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert outcome in out.stdout, out.stdout + out.stderr
    if ci:
        assert "CI installs every extra; z3sandbox_no_such_module is missing" in out.stdout, out.stdout
