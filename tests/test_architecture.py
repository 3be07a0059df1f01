"""The package's shape: imports go one way (no circle), the child side imports nothing of the host,
and no module is over the size budget (STYLE.md, 12).

The import graph is read from the source with ``ast``: every ``import`` anywhere in a module, a
function's lazy one included; only what sits under ``if TYPE_CHECKING:`` is left out (it never runs).
"""

from __future__ import annotations

import ast
from pathlib import Path

import z3sandbox_kernel

PACKAGE = Path(z3sandbox_kernel.__file__).parent
NAME = "z3sandbox_kernel"
MAX_LINES = 400
KNOWN_CIRCLES: list[set[str]] = []  # none: every import goes one way
KNOWN_LARGE: set[str] = set()  # none over MAX_LINES
CHILD_MAY_NOT_IMPORT = ("host", "jupyter", "agents")


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join((NAME, *parts))] = path
    return modules


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``module`` imports."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:  # a submodule, or a name of the module ``base``
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name in modules and name != module}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {module: _imported(module, path, modules) for module, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in graph[node]:
            if successor not in index:
                connect(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in graph:
        if node not in index:
            connect(node)
    return found


def test_the_package_has_no_import_circle():
    unexpected = [circle for circle in circles(import_graph()) if circle not in KNOWN_CIRCLES]
    assert unexpected == []


def test_the_finder_sees_a_circle_made_by_a_lazy_import():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    source = "def f():\n    from . import b\n"
    graph_of_a = _imported_from_source(source)
    assert graph_of_a == {"z3sandbox_kernel.host.b"}


def _imported_from_source(source: str, tmp_name: str = "a.py") -> set[str]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / tmp_name
        path.write_text(source + "if TYPE_CHECKING:\n    from . import c\n", encoding="utf-8")
        modules = {"z3sandbox_kernel.host.a": path, "z3sandbox_kernel.host.b": path,
                   "z3sandbox_kernel.host.c": path}
        return _imported("z3sandbox_kernel.host.a", path, modules)


def test_the_child_side_imports_nothing_of_the_host_jupyter_or_agents():
    graph = import_graph()
    child = [module for module in graph if module.startswith(f"{NAME}.child")]
    reached, todo = set(child), list(child)
    while todo:  # what the child side imports, directly or through another module
        for successor in graph[todo.pop()]:
            if successor not in reached:
                reached.add(successor)
                todo.append(successor)
    forbidden = sorted(module for module in reached
                       if module.split(".")[1] in CHILD_MAY_NOT_IMPORT)
    assert forbidden == []


def test_no_module_is_over_the_size_budget():
    large = {str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
             for path in PACKAGE.rglob("*.py")}
    over = {name: lines for name, lines in large.items() if lines > MAX_LINES and name not in KNOWN_LARGE}
    assert over == {}
