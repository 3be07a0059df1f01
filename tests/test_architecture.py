"""The package's shape: the layers kept by folders, imports one way (no circle between modules or
folders), no import of a name built at run time, nothing of the host or the faces loaded where
untrusted code runs, and no module over the size budget (STYLE.md, 12).

The layers, bottom up: ``protocol/`` (what crosses a process boundary, and the words it is said
in: verdicts, roles); ``contracts/`` (the types and tables the layers above share: limits, options,
results, the vote); ``child/`` (what runs in a sandboxed process); ``zygote/`` (what forks it);
``host/`` (the engine); and the faces (``presentation/``, ``jupyter/``, ``agents/``, ``cli``, and
the package's root with its lazy public names).
``ALLOWED`` says which layer may import which, as an allow-list.

The import graph is read from the source with ``ast``: every ``import`` anywhere in a module, a
function's lazy one included, and ``importlib.import_module`` of a literal name; only what sits
under ``if TYPE_CHECKING:`` is left out (it never runs).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import z3sandbox_kernel

PACKAGE = Path(z3sandbox_kernel.__file__).parent
NAME = "z3sandbox_kernel"
MAX_LINES = 400
KNOWN_CIRCLES: list[set[str]] = []  # none: every import goes one way
KNOWN_LARGE: set[str] = set()  # none over MAX_LINES
PROTOCOL, CONTRACTS = "protocol", "contracts"
BELOW = frozenset({PROTOCOL, CONTRACTS})  # what every layer above the contracts may import
# layer -> the layers it may import (its own included)
ALLOWED: dict[str, frozenset[str]] = {
    PROTOCOL: frozenset({PROTOCOL}),
    CONTRACTS: frozenset({PROTOCOL, CONTRACTS}),
    "child": BELOW | {"child"},
    "zygote": BELOW | {"child", "zygote"},
    "host": BELOW | {"zygote", "host"},  # the zygote's pure helpers (payload overlay, scratch)
    "presentation": BELOW | {"presentation"},
    "jupyter": BELOW | {"host", "presentation", "jupyter"},
    "agents": BELOW | {"host", "presentation", "agents"},
    "cli": BELOW | {"host", "presentation", "jupyter", "agents", "cli"},
    "package": BELOW | {"host", "presentation", "jupyter", "agents", "cli", "package"},
}
# Where untrusted code runs (the zygote and every child it forks), none of these may be loaded.
NEVER_IN_A_SANDBOX = ("host", "presentation", "jupyter", "agents", "cli")


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join((NAME, *parts))] = path
    return modules


def layer_of(module: str) -> str:
    """The layer a module belongs to: its folder; the package's root and ``__main__`` are the
    package's own face, and ``cli`` is a face of its own."""
    parts = module.split(".")[1:]
    if not parts or parts[0] == "__main__":
        return "package"
    return parts[0]


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
        if isinstance(node, ast.Call) and _is_dynamic_import(node) and node.args:
            name = node.args[0]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                found.add(_absolute(name.value, package))
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


def _is_dynamic_import(node: ast.Call) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    function = node.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    return name in ("import_module", "__import__")


def _absolute(name: str, package: str) -> str:
    if not name.startswith("."):
        return name
    level = len(name) - len(name.lstrip("."))
    anchor = package.split(".")[: len(package.split(".")) - level + 1]
    return ".".join([*anchor, name.lstrip(".")]) if name.lstrip(".") else ".".join(anchor)


def built_up_imports(source: str) -> list[int]:
    """The lines that import a module whose name is built at run time (an f-string, a sum, a
    format or a join): the graph cannot see what they import, so no layer rule can hold there.
    A name from a table of literals (the package's lazy public names) is not built up."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _is_dynamic_import(node) and node.args:
            name = node.args[0]
            if isinstance(name, (ast.JoinedStr, ast.BinOp)) or (
                    isinstance(name, ast.Call) and isinstance(name.func, ast.Attribute)
                    and name.func.attr in ("format", "join")):
                lines.append(node.lineno)
    return lines


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


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import that goes against ``ALLOWED``."""
    return sorted(f"{module} -> {imported}" for module, imports in graph.items() for imported in imports
                  if layer_of(imported) not in ALLOWED[layer_of(module)]
                 )


def folder_circles(graph: dict[str, set[str]]) -> list[set[str]]:
    folders: dict[str, set[str]] = {}
    for module, imports in graph.items():
        folders.setdefault(layer_of(module), set()).update(
            layer_of(imported) for imported in imports
            if layer_of(imported) != layer_of(module))
    return circles(folders)


def test_every_import_goes_down_the_layers():
    assert layer_violations(import_graph()) == []


def test_the_folders_have_no_circle():
    assert folder_circles(import_graph()) == []


def test_no_module_imports_a_name_built_at_run_time():
    found = {str(path.relative_to(PACKAGE)): lines for path in PACKAGE.rglob("*.py")
             if (lines := built_up_imports(path.read_text(encoding="utf-8")))}
    assert found == {}


INJECTED = {  # (module, the import line added to it): each goes against the layers
    "zygote importing the host": ("zygote.server", "from ..host import sandbox"),
    "zygote importing jupyter": ("zygote.classify", "def f():\n    from ..jupyter import magic"),
    "child importing the presentation": ("child.harness", "from ..presentation import phrases"),
    "a contract importing the presentation": ("contracts.options", "from ..presentation import phrases"),
    "child importing the zygote": ("child.bootstrap", "from ..zygote import recipe"),
    "results importing more of the presentation": ("contracts.results",
                                                   "def f():\n    from ..presentation import html"),
}


@pytest.mark.parametrize("case", sorted(INJECTED))
def test_the_checks_catch_an_import_against_the_layers(case, tmp_path):
    module, line = INJECTED[case]
    graph = import_graph()
    name = f"{NAME}.{module}"
    path = _modules()[name]
    injected = tmp_path / path.name
    injected.write_text(path.read_text(encoding="utf-8") + "\n" + line + "\n", encoding="utf-8")
    graph[name] = _imported(name, injected, _modules())
    assert layer_violations(graph) != []


def test_the_checks_catch_an_import_of_a_built_up_name():
    assert built_up_imports("import importlib\nimportlib.import_module(f'..host.{name}', __package__)\n")
    assert built_up_imports("__import__('z3sandbox_kernel.' + 'host')\n")
    assert not built_up_imports("importlib.import_module(_LAZY[name], __name__)\n")


LOADED_IN_A_CANDIDATE = """
import sys
print(sorted(name for name in sys.modules if name.startswith("z3sandbox_kernel")))
"""


def test_a_running_zygote_and_candidate_load_nothing_of_the_host_or_the_faces():
    """A candidate is a fork of the zygote's fork server: what it has loaded, the zygote had."""
    from z3sandbox_kernel import Sandbox

    with Sandbox() as sandbox:
        result = sandbox.run([LOADED_IN_A_CANDIDATE], verify=False).candidates[0]
    loaded = ast.literal_eval(result.stdout.strip())
    assert f"{NAME}.zygote.server" in loaded and f"{NAME}.child.harness" in loaded  # it did look
    assert [name for name in loaded if layer_of(name) in NEVER_IN_A_SANDBOX] == []


def test_no_module_is_over_the_size_budget():
    large = {str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
             for path in PACKAGE.rglob("*.py")}
    over = {name: lines for name, lines in large.items() if lines > MAX_LINES and name not in KNOWN_LARGE}
    assert over == {}
