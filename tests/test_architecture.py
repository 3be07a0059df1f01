"""The package's shape: the layers kept by folders, imports one way (no circle between folders nor
between modules, not even for the type checker), no import the graph cannot see (a module name held
in a variable, an importer passed around), nothing of the host or the faces loaded where untrusted
code runs, and no module nor function over its size budget (STYLE.md, 12).

The layers, bottom up: ``protocol/`` (what crosses a process boundary, and the words it is said
in: verdicts, roles); ``contracts/`` (the types and tables the layers above share: limits, options,
results, the vote); ``child/`` (what runs in a sandboxed process); ``zygote/`` (what forks it);
``host/`` (the engine); and the faces (``presentation/``, ``jupyter/``, ``agents/``, ``cli``, and
the package's root with its lazy public names).  ``ALLOWED`` says which layer may import which, as
an allow-list with no exception.

The import graph is read from the source with ``ast``: every ``import`` anywhere in a module, a
function's lazy one included, and every call of ``importlib.import_module`` or ``__import__``
under any alias with a literal name (any other use of them is refused); what sits under ``if
TYPE_CHECKING:`` is left out of the run-time graph (it never runs) and kept in the type graph.
Each check is shown to catch its regressions: ``INJECTED`` adds one to a copy of a real module.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from pathlib import Path

import pytest

import z3sandbox_kernel

PACKAGE = Path(z3sandbox_kernel.__file__).parent
NAME = "z3sandbox_kernel"
MAX_LINES = 400
MAX_FUNCTION_LINES = 60
MAX_CLASS_LINES, MAX_METHODS = 200, 16
IMPORTERS = ("import_module", "__import__")
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


def _importer_names(tree: ast.AST) -> set[str]:
    """The local names of ``importlib.import_module`` and ``__import__``, aliases included
    (``from importlib import import_module as im``)."""
    names = set(IMPORTERS)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("importlib", "builtins"):
            names.update(alias.asname or alias.name for alias in node.names if alias.name in IMPORTERS)
    return names


def _is_importer(node: ast.AST, names: set[str]) -> bool:
    """An expression that is an importer: ``import_module``, ``il.import_module`` (any module
    alias), ``im`` (a name alias), ``getattr(importlib, "import_module")``."""
    if isinstance(node, ast.Attribute):
        return node.attr in IMPORTERS
    if isinstance(node, ast.Name):
        return node.id in names and isinstance(node.ctx, ast.Load)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and any(isinstance(a, ast.Constant) and a.value in IMPORTERS for a in node.args[1:]))


def _literal_name(call: ast.Call) -> str | None:
    """The module name an importer's call names as a literal, else None."""
    name = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "name"), None)
    return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None


def non_literal_imports(source: str) -> list[int]:
    """The lines that use an importer other than by calling it with a literal name (a name held
    in a variable, built up, or the importer passed around): the graph cannot see what they
    import, so no layer rule can hold there."""
    tree = ast.parse(source)
    names = _importer_names(tree)
    literal_calls = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)
                     and _is_importer(node.func, names) and _literal_name(node) is not None}
    return sorted({node.lineno for node in ast.walk(tree)
                   if _is_importer(node, names) and id(node) not in literal_calls})


def _imported(module: str, path: Path, modules: dict[str, Path], types: bool = False) -> set[str]:
    """The package's modules that ``module`` imports: at run time, or (``types``) for the type
    checker too (what sits under ``if TYPE_CHECKING:``)."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = _importer_names(tree)
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if not types and isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Call) and _is_importer(node.func, names) and _literal_name(node):
            found.add(_absolute(_literal_name(node) or "", package))
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute("." * node.level + (node.module or ""), package)
            for alias in node.names:  # a submodule, or a name of the module ``base``
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name for name in found if name in modules and name != module}


def _absolute(name: str, package: str) -> str:
    if not name.startswith("."):
        return name
    level = len(name) - len(name.lstrip("."))
    anchor = package.split(".")[: len(package.split(".")) - level + 1]
    return ".".join([*anchor, name.lstrip(".")]) if name.lstrip(".") else ".".join(anchor)


def long_functions(source: str) -> dict[str, int]:
    """Each function (method, nested one) over ``MAX_FUNCTION_LINES``, by its qualified name: its
    lines from ``def`` to the last, its docstring left out (the why is not held against it)."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}."
                lines = (child.end_lineno or child.lineno) - child.lineno + 1 - _docstring_lines(child)
                if not isinstance(child, ast.ClassDef) and lines > MAX_FUNCTION_LINES:
                    found[name[:-1]] = lines
            visit(child, name)

    visit(ast.parse(source), "")
    return found


def large_classes(source: str) -> dict[str, tuple[int, int]]:
    """Each class over ``MAX_CLASS_LINES`` lines or ``MAX_METHODS`` methods: (lines, methods)."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            methods = sum(isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) for child in node.body)
            if lines > MAX_CLASS_LINES or methods > MAX_METHODS:
                found[node.name] = (lines, methods)
    return found


def _docstring_lines(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
            first.value.value, str):
        return (first.end_lineno or first.lineno) - first.lineno + 1
    return 0


def import_graph(types: bool = False) -> dict[str, set[str]]:
    """The package's import graph: module -> the package's modules it imports (a fresh copy)."""
    return {module: set(imports) for module, imports in _import_graph(types).items()}


@functools.cache
def _import_graph(types: bool) -> dict[str, frozenset[str]]:
    modules = _modules()
    return {module: frozenset(_imported(module, path, modules, types)) for module, path in modules.items()}


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


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import that goes against ``ALLOWED``."""
    return sorted(f"{module} -> {imported}" for module, imports in graph.items() for imported in imports
                  if layer_of(imported) not in ALLOWED[layer_of(module)])


def folder_circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The circles between layers (the package's root and ``protocol/`` included)."""
    folders: dict[str, set[str]] = {}
    for module, imports in graph.items():
        folders.setdefault(layer_of(module), set()).update(
            layer_of(imported) for imported in imports if layer_of(imported) != layer_of(module))
    return circles(folders)


def _sources() -> dict[str, str]:
    return {str(path.relative_to(PACKAGE)): path.read_text(encoding="utf-8")
            for path in sorted(PACKAGE.rglob("*.py"))}


def test_the_package_has_no_import_circle():
    assert circles(import_graph()) == []


def test_no_two_modules_import_each_other_not_even_for_the_type_checker():
    assert circles(import_graph(types=True)) == []


def test_every_import_goes_down_the_layers():
    assert layer_violations(import_graph()) == []


def test_the_folders_have_no_circle():
    assert folder_circles(import_graph(types=True)) == []


def test_every_dynamic_import_names_a_literal_module():
    found = {name: lines for name, source in _sources().items() if (lines := non_literal_imports(source))}
    assert found == {}


def test_no_module_is_over_the_size_budget():
    over = {name: lines for name, source in _sources().items()
            if (lines := len(source.splitlines())) > MAX_LINES}
    assert over == {}


def test_no_function_is_over_the_size_budget():
    over = {f"{name}:{function}": lines for name, source in _sources().items()
            for function, lines in long_functions(source).items()}
    assert over == {}


def test_no_class_is_over_the_size_budget():
    over = {f"{name}:{cls}": size for name, source in _sources().items()
            for cls, size in large_classes(source).items()}
    assert over == {}


def test_the_finder_sees_a_circle_made_by_a_lazy_import():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


# ---------------------------------------------------------------- each check catches its regressions

Graph = dict[str, set[str]]
CHECKS: dict[str, Callable[[Graph, Graph, str], object]] = {
    "layers": lambda graph, _, __: layer_violations(graph),
    "circle": lambda graph, _, __: circles(graph),
    "type circle": lambda _, types, __: circles(types),
    "folder circle": lambda graph, _, __: folder_circles(graph),
    "non-literal": lambda _, __, source: non_literal_imports(source),
    "long function": lambda _, __, source: long_functions(source),
    "large class": lambda _, __, source: large_classes(source),
}
LONG = "def f():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
MANY = "class C:\n" + "".join(f"    def m{n}(self):\n        pass\n" for n in range(MAX_METHODS + 1))
INJECTED = {  # case -> (module, the text added to it, the check that must catch it)
    "zygote importing the host": ("zygote.server", "from ..host import sandbox", "layers"),
    "zygote importing jupyter lazily": ("zygote.classify", "def f():\n    from ..jupyter import magic",
                                        "layers"),
    "child importing the presentation": ("child.harness", "from ..presentation import phrases", "layers"),
    "a contract importing the presentation": ("contracts.options",
                                              "def f():\n    from ..presentation import html", "layers"),
    "child importing the zygote": ("child.bootstrap", "from ..zygote import recipe", "layers"),
    "protocol importing a contract": ("protocol.messages", "from ..contracts import limits", "layers"),
    "an aliased import_module": ("zygote.server", "from importlib import import_module as im\n"
                                 "im('z3sandbox_kernel.host.sandbox')", "layers"),
    "import_module of a module alias": ("child.harness", "import importlib as il\n"
                                        "il.import_module('..host.sandbox', __package__)", "layers"),
    "__import__ of a literal": ("child.harness", "__import__('z3sandbox_kernel.jupyter.magic')", "layers"),
    "a module name in a variable": ("zygote.server", "import importlib\nWHERE = 'z3sandbox_kernel.host'\n"
                                    "importlib.import_module(WHERE)", "non-literal"),
    "an aliased importer of a variable": ("zygote.server", "from importlib import import_module as im\n"
                                          "im(WHERE)", "non-literal"),
    "a built-up name": ("child.harness", "__import__('z3sandbox_kernel.' + 'host')", "non-literal"),
    "an f-string name": ("child.harness", "import importlib\nimportlib.import_module(f'..{x}', __package__)",
                         "non-literal"),
    "the importer passed around": ("child.harness", "import importlib\nload = importlib.import_module",
                                   "non-literal"),
    "the importer by getattr": ("child.harness", "import importlib\n"
                                "getattr(importlib, 'import_module')(where)", "non-literal"),
    "a circle between protocol and contracts": ("protocol.messages", "def f():\n"
                                                "    from ..contracts import vote", "folder circle"),
    "a circle between the root and contracts": ("contracts.options", "def f():\n    from .. import run",
                                                "folder circle"),
    "a lazy circle between two modules": ("contracts.limits", "def f():\n    from . import results",
                                          "circle"),
    "a type-only circle between two modules": ("contracts.vote", "if TYPE_CHECKING:\n"
                                               "    from .results import CandidateResult", "type circle"),
    "a function over the budget": ("contracts.limits", LONG, "long function"),
    "a class of too many methods": ("contracts.limits", MANY, "large class"),
}


@pytest.mark.parametrize("case", sorted(INJECTED))
def test_each_check_catches_an_injected_regression(case, tmp_path):
    """The check finds nothing in the package (the tests above), and something once the module
    has the injected text: run on a copy of that module written to a temporary folder."""
    module, text, check = INJECTED[case]
    name = f"{NAME}.{module}"
    path = _modules()[name]
    source = path.read_text(encoding="utf-8") + "\n" + text + "\n"
    injected = tmp_path / path.name
    injected.write_text(source, encoding="utf-8")
    graph, types = import_graph(), import_graph(types=True)
    graph[name] = _imported(name, injected, _modules())
    types[name] = _imported(name, injected, _modules(), types=True)
    assert CHECKS[check](graph, types, source)
    assert not CHECKS[check](import_graph(), import_graph(types=True), path.read_text(encoding="utf-8"))


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
