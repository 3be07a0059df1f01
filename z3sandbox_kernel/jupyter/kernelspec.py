"""Install and remove the ``z3sandbox`` kernelspec: pure functions, and a thin CLI on top.

``pip install`` already ships the kernelspec as shared data (``share/jupyter/kernels/z3sandbox``,
with ``"python"`` as argv[0], which jupyter_client replaces by its own interpreter); ``pip
uninstall`` removes it.  These functions are for a Jupyter server that runs in *another*
environment: the installed kernel.json names this interpreter by its absolute path, so the server
starts the kernel here.  Such a spec is ours to remove: pip does not know it, so one left behind by
``pip uninstall`` names an interpreter without the package (*stale*); ``uninstall`` removes those too.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

KERNEL_NAME = "z3sandbox"
DISPLAY_NAME = "Z3 Sandbox (Python 3)"
RESOURCES = files("z3sandbox_kernel.jupyter") / "resources" / "kernelspec"
KERNEL_MODULE = "z3sandbox_kernel.jupyter.kernel"


class KernelJson(TypedDict):
    """The kernel spec's kernel.json (resources/kernelspec), as Jupyter reads it."""

    argv: list[str]
    display_name: str
    language: str
    interrupt_mode: str


def _prefix(sys_prefix: bool, prefix: str | None) -> str | None:
    if sys_prefix and prefix:
        raise ValueError("give at most one of sys_prefix and prefix")
    return sys.prefix if sys_prefix else prefix


def install_kernelspec(
    *,
    user: bool = False,
    sys_prefix: bool = False,
    prefix: str | None = None,
    name: str = KERNEL_NAME,
    display_name: str = DISPLAY_NAME,
) -> str:
    """Install the kernelspec (kernel.json and logos) and return the directory it went to.

    Where: the user's Jupyter data directory (``user``), this environment (``sys_prefix``), a
    prefix, or else the system-wide directory.  An existing spec of the same name is replaced.
    """
    if user and (sys_prefix or prefix):
        raise ValueError("give at most one of user, sys_prefix and prefix")
    destination_prefix = _prefix(sys_prefix, prefix)
    with tempfile.TemporaryDirectory() as staging:
        os.chmod(staging, 0o755)  # copied with its mode: a system-wide spec other users can read
        for resource in RESOURCES.iterdir():
            if resource.is_file():
                _copy(resource, staging)
        spec_path = os.path.join(staging, "kernel.json")
        with open(spec_path, encoding="utf-8") as stream:
            spec: KernelJson = json.load(stream)
        spec["argv"][0] = sys.executable
        spec["display_name"] = display_name
        with open(spec_path, "w", encoding="utf-8") as stream:
            json.dump(spec, stream, indent=2)
            stream.write("\n")
        return str(KernelSpecManager().install_kernel_spec(
            staging, kernel_name=name, user=user, prefix=destination_prefix
        ))


def _copy(resource: Traversable, directory: str) -> None:
    path = os.path.join(directory, resource.name)
    with open(path, "wb") as stream:
        stream.write(resource.read_bytes())
    os.chmod(path, 0o644)


def _interpreter(directory: str) -> str | None:
    """The absolute interpreter a spec of ours names (one ``install`` made), else None (pip's
    copy names ``python``; another kernel's spec does not run our module)."""
    try:
        with open(os.path.join(directory, "kernel.json"), encoding="utf-8") as stream:
            argv = json.load(stream)["argv"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if isinstance(argv, list) and KERNEL_MODULE in argv and os.path.isabs(str(argv[0])):
        return str(argv[0])
    return None


def is_stale(interpreter: str) -> bool:
    """The interpreter is gone, or no longer has this package (``pip uninstall`` ran)."""
    if not os.access(interpreter, os.X_OK):
        return True
    check = "import importlib.util, sys; sys.exit(importlib.util.find_spec('z3sandbox_kernel') is None)"
    try:
        return subprocess.run([interpreter, "-I", "-c", check], capture_output=True,
                              timeout=30).returncode == 1
    except (OSError, subprocess.TimeoutExpired):
        return False  # cannot tell: leave it


def installed_kernelspecs(kernel_dirs: list[str] | None = None) -> list[tuple[str, str]]:
    """Every spec ``install`` made that Jupyter can see: (its folder, the interpreter it names)."""
    found = []
    for kernels in kernel_dirs if kernel_dirs is not None else KernelSpecManager().kernel_dirs:
        if os.path.isdir(kernels):
            for entry in sorted(os.listdir(kernels)):
                interpreter = _interpreter(os.path.join(kernels, entry))
                if interpreter is not None:
                    found.append((os.path.join(kernels, entry), interpreter))
    return found


def remove_made_by_install(name: str = KERNEL_NAME, kernel_dirs: list[str] | None = None) -> list[str]:
    """``uninstall`` with no place: the specs named ``name`` that ``install`` made for this
    interpreter, and every stale one of ours (any name); never pip's copy.  The folders removed."""
    removed = []
    for directory, interpreter in installed_kernelspecs(kernel_dirs):
        mine = os.path.basename(directory) == name and Path(interpreter) == Path(sys.executable)
        if mine or is_stale(interpreter):
            shutil.rmtree(directory)
            removed.append(directory)
    return removed


def uninstall_kernelspec(
    name: str = KERNEL_NAME,
    *,
    user: bool = False,
    sys_prefix: bool = False,
    prefix: str | None = None,
) -> str:
    """Remove a kernelspec and return the directory removed.

    With ``user``, ``sys_prefix`` or ``prefix``: from that place only; else the first one Jupyter
    finds.  ``NoSuchKernel`` (a KeyError) if there is none there.
    """
    manager = KernelSpecManager()
    if not (user or sys_prefix or prefix):
        return str(manager.remove_kernel_spec(name))
    if user and (sys_prefix or prefix):
        raise ValueError("give at most one of user, sys_prefix and prefix")
    destination_prefix = _prefix(sys_prefix, prefix)
    if user:
        directory = os.path.join(manager.user_kernel_dir, name)
    else:
        assert destination_prefix is not None
        directory = os.path.join(
            os.path.abspath(destination_prefix), "share", "jupyter", "kernels", name
        )
    if not os.path.isfile(os.path.join(directory, "kernel.json")):
        raise NoSuchKernel(name)
    shutil.rmtree(directory)
    return directory


# ---------------------------------------------------------------------------------------------- CLI

def _where(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--user", action="store_true", help="the user's Jupyter data directory")
    group.add_argument("--sys-prefix", action="store_true", help=f"this environment ({sys.prefix})")
    group.add_argument("--prefix", metavar="P", help="the prefix P (P/share/jupyter/kernels)")


def _install(args: argparse.Namespace) -> int:
    for directory, interpreter in installed_kernelspecs():
        if is_stale(interpreter):
            print(f"z3sandbox: note: {directory} is stale: {interpreter} no longer has z3sandbox_kernel "
                  "(python -m z3sandbox_kernel uninstall removes it)", file=sys.stderr)
    try:
        path = install_kernelspec(
            user=args.user, sys_prefix=args.sys_prefix, prefix=args.prefix,
            name=args.name, display_name=args.display_name,
        )
    except OSError as exc:
        hint = "" if args.user or args.sys_prefix or args.prefix or not isinstance(
            exc, PermissionError) else " (the system-wide folder needs root: --user installs for you alone)"
        print(f"z3sandbox: cannot install the kernelspec: {exc}{hint}", file=sys.stderr)
        return 1
    print(f"Installed kernelspec {args.name} in {path}")
    return 0


def _uninstall(args: argparse.Namespace) -> int:
    if not (args.user or args.sys_prefix or args.prefix):
        return _uninstall_ours(args.name)
    try:
        path = uninstall_kernelspec(
            args.name, user=args.user, sys_prefix=args.sys_prefix, prefix=args.prefix
        )
    except NoSuchKernel:
        print(f"z3sandbox: no kernelspec named {args.name} there", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"z3sandbox: cannot remove the kernelspec: {exc}", file=sys.stderr)
        return 1
    print(f"Removed kernelspec {args.name} from {path}")
    return 0


def _uninstall_ours(name: str) -> int:
    try:
        removed = remove_made_by_install(name)
    except OSError as exc:
        print(f"z3sandbox: cannot remove the kernelspec: {exc}", file=sys.stderr)
        return 1
    for directory in removed:
        print(f"Removed kernelspec {os.path.basename(directory)} from {directory}")
    try:
        shipped = KernelSpecManager().get_kernel_spec(name).resource_dir
    except NoSuchKernel:
        shipped = None
    if shipped is not None and _interpreter(shipped) is None:
        print(f"Kept {shipped}: pip installed it, and pip uninstall z3sandbox-kernel removes it")
    if not removed:
        print(f"z3sandbox: no kernelspec named {name} that install made for {sys.executable}, and no "
              "stale one (--user, --sys-prefix or --prefix remove a spec from that place)",
              file=sys.stderr)
        return 1
    return 0


def add_cli_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``install`` and ``uninstall``; each sets ``func``: handler(args) -> exit status."""
    install = subparsers.add_parser(
        "install", help="install the Jupyter kernelspec (for a Jupyter in another environment)"
    )
    _where(install)
    install.add_argument("--name", default=KERNEL_NAME, help=f"kernelspec name ({KERNEL_NAME})")
    install.add_argument(
        "--display-name", default=DISPLAY_NAME, help=f"name in the kernel picker ({DISPLAY_NAME})"
    )
    install.set_defaults(func=_install)
    uninstall = subparsers.add_parser(
        "uninstall", help="remove the kernelspecs install made (and stale ones), or the one at a place",
        description="Without a place: remove the kernelspecs that install made for this interpreter, "
                    "and every stale one (its interpreter gone or without the package); pip's own "
                    "copy stays (pip uninstall removes it).  With a place: the spec there.")
    _where(uninstall)
    uninstall.add_argument("--name", default=KERNEL_NAME, help=f"kernelspec name ({KERNEL_NAME})")
    uninstall.set_defaults(func=_uninstall)
