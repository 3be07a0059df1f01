"""What a candidate sees of the filesystem, with every layer on (kernel level): the Python of
``python script.py`` in this environment (the venv's packages, z3's source lines), and of the host
only the path to it.  The folders above a path of the view (``/home`` and the user's home when the
venv lives there, the project root of an editable install, ``/usr``) can be passed, not listed.
tests/child/layers/test_view.py checks the view itself, layer by layer.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
import z3

import z3sandbox_kernel
from z3sandbox_kernel import Limits, Sandbox
from z3sandbox_kernel.contracts.readable import project_root, read_only_paths

pytestmark = pytest.mark.timeout(120)
LIMITS = Limits(timeout_s=10, wall_s=30, cpu_s=20)


LIST_EACH = """
import json, os
out = {}
for folder in FOLDERS:
    try:
        os.listdir(folder)
        out[folder] = "listed"
    except PermissionError:
        out[folder] = "refused"
    except FileNotFoundError:
        out[folder] = "missing"
print(json.dumps(out))
"""


def passages() -> list[str]:
    """Host folders above a path of the view, up to the first that is on the view itself."""
    found = set()
    for bound in read_only_paths():
        parent = os.path.dirname(bound)
        while parent != "/" and not any(parent == p for p in read_only_paths()):
            found.add(parent)
            parent = os.path.dirname(parent)
    return sorted(found)


def run_json(sandbox: Sandbox, script: str) -> object:
    result = sandbox.run(script, limits=LIMITS)[0]
    assert result.verdict == "no_check", (result.verdict, result.reason, result.stderr[-800:])
    return json.loads(result.stdout)


def test_folders_above_the_view_can_be_passed_but_not_listed(kernel_sandbox: Sandbox) -> None:
    folders = passages()
    assert "/usr" in folders or sys.prefix.startswith(("/home", "/root", "/tmp", "/opt"))
    script = LIST_EACH.replace("FOLDERS", repr(folders))
    seen = run_json(kernel_sandbox, script)
    assert seen == dict.fromkeys(folders, "refused")


def test_the_venvs_packages_and_z3s_source_are_there(kernel_sandbox: Sandbox) -> None:
    """Any installed package imports (a regular install once hid site-packages), and a traceback
    through z3 shows z3's source lines."""
    script = ("import json, linecache, traitlets, z3\n"
              "print(json.dumps([traitlets.__file__, bool(linecache.getline(z3.z3.__file__, 1))]))\n")
    traitlets_file, z3_source = run_json(kernel_sandbox, script)  # type: ignore[misc]
    assert traitlets_file.startswith(sys.prefix) and z3_source
    assert os.path.dirname(z3.__file__).startswith(sys.prefix)


def test_a_checkout_shows_nothing_but_the_package(kernel_sandbox: Sandbox) -> None:
    root = project_root()
    if root is None:  # a regular install: the package is in site-packages, seen whole
        assert os.path.basename(os.path.dirname(z3sandbox_kernel.__file__)) == "z3sandbox_kernel"
        return
    paths = [os.path.join(root, name) for name in (".git", "pyproject.toml", "z3sandbox_kernel")]
    script = f"import json, os\nprint(json.dumps([os.path.exists(p) for p in {paths!r}]))\n"
    assert run_json(kernel_sandbox, script) == [False, False, True]
