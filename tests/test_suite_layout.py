"""The suite's own layout (issue 42.10): a test module imports nothing from another test module, and
no file of the suite is over 400 lines.

What two test modules share lives in a helper module (tests/forked.py, tests/verifying.py,
tests/child/running.py, tests/jupyter/kernels.py, ...), so that running or editing one test file
never depends on another's tests, and a helper is written once.  A file over the budget is split by
subject into files whose names say it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
MAX_LINES = 400
# Candidate scripts the suite runs in the sandbox, never imports: as long as what they do needs.
STANDALONE = ("evil/scripts", "fidelity/scripts")


def suite_files() -> Iterator[Path]:
    for path in sorted(TESTS.rglob("*.py")):
        if not any(path.is_relative_to(TESTS / folder) for folder in STANDALONE):
            yield path


def is_test_module(path: Path) -> bool:
    """As pytest collects them (its default ``python_files``)."""
    return path.name.startswith("test_") or path.name.endswith("_test.py")


def dotted(path: Path) -> str:
    return ".".join(path.relative_to(TESTS.parent).with_suffix("").parts)


TEST_MODULES = {dotted(path) for path in suite_files() if is_test_module(path)}


def imported(source: str, module: str) -> Iterator[tuple[int, str]]:
    """Each module (or module attribute) that ``source``, the text of ``module``, imports, with its
    line: relative imports resolved, imports inside functions included."""
    package = module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            stem = ".".join([*base, *([node.module] if node.module else [])])
            yield node.lineno, stem
            for alias in node.names:
                yield node.lineno, f"{stem}.{alias.name}"


def imports_of_test_modules(source: str, module: str, test_modules: set[str]) -> list[str]:
    return [f"line {line}: {name}" for line, name in imported(source, module)
            if name in test_modules and name != module]


def test_no_test_module_imports_another() -> None:
    found = {}
    for path in suite_files():
        bad = imports_of_test_modules(path.read_text(encoding="utf-8"), dotted(path), TEST_MODULES)
        if bad:
            found[str(path.relative_to(TESTS))] = bad
    assert not found, (
        f"test modules import from other test modules: {found}; move what they share into a helper "
        "module (not named test_*), e.g. tests/forked.py or tests/child/running.py")


def test_no_file_of_the_suite_is_over_the_budget() -> None:
    sizes = {str(path.relative_to(TESTS)): len(path.read_text(encoding="utf-8").splitlines())
             for path in suite_files()}
    over = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert not over, (
        f"files of the suite over {MAX_LINES} lines: {over}; split each by subject into files whose "
        "names say it (shared helpers into a helper module)")


@pytest.mark.parametrize("source", [
    pytest.param("from tests.child.test_harness import run_child\n", id="from_absolute"),
    pytest.param("import tests.child.test_harness\n", id="import"),
    pytest.param("from .test_harness import run_child\n", id="from_relative"),
    pytest.param("from . import test_harness\n", id="from_package"),
    pytest.param("from .. import child\nfrom ..child.test_harness import HARD\n", id="from_parent"),
    pytest.param("def later():\n    from .test_harness import run_child\n", id="in_a_function"),
])
def test_every_form_of_importing_a_test_module_is_seen(source: str) -> None:
    """The check can fail: each way of writing the import, as tests/child/test_checks.py might."""
    found = imports_of_test_modules(source, "tests.child.test_checks", {"tests.child.test_harness"})
    assert found and "tests.child.test_harness" in found[-1]


def test_helper_modules_may_be_imported() -> None:
    source = "from .running import run_child\nfrom tests.forked import in_fork\nimport tests.conftest\n"
    assert imports_of_test_modules(source, "tests.child.test_checks", TEST_MODULES) == []
