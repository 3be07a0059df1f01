"""The kernelspec functions and their CLI (`python -m z3sandbox_kernel install|uninstall`)."""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path

import pytest
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

from z3sandbox_kernel.jupyter import kernelspec
from z3sandbox_kernel.jupyter.kernelspec import (
    RESOURCES,
    add_cli_commands,
    install_kernelspec,
    installed_kernelspecs,
    remove_made_by_install,
    uninstall_kernelspec,
)


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="z3sandbox")
    add_cli_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    status: int = args.func(args)
    return status


def test_shipped_kernelspec_names_the_module_and_has_logos() -> None:
    spec = json.loads((RESOURCES / "kernel.json").read_text())
    assert spec["argv"] == ["python", "-m", "z3sandbox_kernel.jupyter.kernel", "-f",
                            "{connection_file}"]
    assert spec["display_name"] == "Z3 Sandbox (Python 3)"
    assert spec["language"] == "python"
    for size in (32, 64):
        png = (RESOURCES / f"logo-{size}x{size}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", png[16:24]) == (size, size)
    assert (RESOURCES / "logo-svg.svg").read_text().lstrip().startswith("<svg")


def test_install_into_a_prefix_names_this_interpreter(tmp_path: Path) -> None:
    path = install_kernelspec(prefix=str(tmp_path), name="z3test", display_name="Z3 test")
    assert Path(path) == tmp_path / "share" / "jupyter" / "kernels" / "z3test"
    spec = json.loads((Path(path) / "kernel.json").read_text())
    assert spec["argv"][0] == sys.executable
    assert spec["display_name"] == "Z3 test"
    assert {p.name for p in Path(path).iterdir()} == {
        "kernel.json", "logo-32x32.png", "logo-64x64.png", "logo-svg.svg"
    }


def test_installed_spec_is_found_through_jupyter_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_kernelspec(prefix=str(tmp_path))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "share" / "jupyter"))
    spec = KernelSpecManager().get_kernel_spec("z3sandbox")
    assert spec.display_name == "Z3 Sandbox (Python 3)"
    assert spec.argv[1:3] == ["-m", "z3sandbox_kernel.jupyter.kernel"]


def test_uninstall_from_a_prefix_removes_only_that_spec(tmp_path: Path) -> None:
    install_kernelspec(prefix=str(tmp_path), name="one")
    kept = install_kernelspec(prefix=str(tmp_path), name="two")
    removed = uninstall_kernelspec("one", prefix=str(tmp_path))
    assert not Path(removed).exists()
    assert Path(kept).exists()
    with pytest.raises(NoSuchKernel):
        uninstall_kernelspec("one", prefix=str(tmp_path))


def test_cli_install_and_uninstall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("install", "--prefix", str(tmp_path), "--name", "z3cli",
               "--display-name", "Z3 CLI") == 0
    target = tmp_path / "share" / "jupyter" / "kernels" / "z3cli"
    assert f"Installed kernelspec z3cli in {target}" in capsys.readouterr().out
    assert json.loads((target / "kernel.json").read_text())["display_name"] == "Z3 CLI"
    assert cli("uninstall", "--prefix", str(tmp_path), "--name", "z3cli") == 0
    assert not target.exists()
    assert cli("uninstall", "--prefix", str(tmp_path), "--name", "z3cli") == 1
    assert "no kernelspec named z3cli" in capsys.readouterr().err


def test_cli_places_are_mutually_exclusive(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli("install", "--user", "--prefix", str(tmp_path))
    assert exit_info.value.code == 2
    assert not (tmp_path / "share").exists()


def test_an_installed_spec_is_readable_by_other_users(tmp_path: Path) -> None:
    path = Path(install_kernelspec(prefix=str(tmp_path)))
    assert path.stat().st_mode & 0o777 == 0o755
    assert {p.name: p.stat().st_mode & 0o777 for p in path.iterdir()} == dict.fromkeys(
        ("kernel.json", "logo-32x32.png", "logo-64x64.png", "logo-svg.svg"), 0o644)


def _kernels(prefix: Path) -> str:
    return str(prefix / "share" / "jupyter" / "kernels")


def test_uninstall_without_a_place_removes_what_install_made_and_stale_specs_never_pips_copy(
    tmp_path: Path,
) -> None:
    pip_copy = tmp_path / "env"
    shipped = Path(_kernels(pip_copy)) / "z3sandbox"
    shipped.mkdir(parents=True)
    (shipped / "kernel.json").write_text((RESOURCES / "kernel.json").read_text())
    mine = install_kernelspec(prefix=str(tmp_path / "user"))
    other = install_kernelspec(prefix=str(tmp_path / "user"), name="z3other")
    stale = install_kernelspec(prefix=str(tmp_path / "old"), name="z3old")
    spec = json.loads((Path(stale) / "kernel.json").read_text())
    spec["argv"][0] = str(tmp_path / "gone" / "bin" / "python")  # its environment was removed
    (Path(stale) / "kernel.json").write_text(json.dumps(spec))
    dirs = [_kernels(pip_copy), _kernels(tmp_path / "user"), _kernels(tmp_path / "old")]
    removed = remove_made_by_install("z3sandbox", dirs)
    assert sorted(removed) == sorted([mine, stale])
    assert (shipped / "kernel.json").exists() and Path(other).exists()
    assert [directory for directory, _ in installed_kernelspecs(dirs)] == [other]


def test_cli_uninstall_without_a_place_says_what_it_removed_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only this test's folder is looked at: never this machine's own kernelspecs.
    monkeypatch.setattr(kernelspec, "installed_kernelspecs",
                        lambda kernel_dirs=None: installed_kernelspecs([_kernels(tmp_path / "prefix")]))
    target = Path(install_kernelspec(prefix=str(tmp_path / "prefix")))
    assert cli("uninstall") == 0
    assert f"Removed kernelspec z3sandbox from {target}" in capsys.readouterr().out
    assert not target.exists()
    assert cli("uninstall") == 1
    assert "no kernelspec named z3sandbox that install made for" in capsys.readouterr().err


def test_cli_install_points_out_stale_specs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = Path(install_kernelspec(prefix=str(tmp_path / "old"), name="z3old"))
    spec = json.loads((stale / "kernel.json").read_text())
    spec["argv"][0] = str(tmp_path / "gone" / "bin" / "python")
    (stale / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setattr(kernelspec, "installed_kernelspecs",
                        lambda kernel_dirs=None: installed_kernelspecs([_kernels(tmp_path / "old")]))
    assert cli("install", "--prefix", str(tmp_path / "new")) == 0
    assert (f"note: {stale} is stale: {spec['argv'][0]} no longer has z3sandbox_kernel "
            "(python -m z3sandbox_kernel uninstall removes it)") in capsys.readouterr().err
