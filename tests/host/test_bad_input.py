"""Bad limits and bad input raise ValueError with a clear message, and start no process.

Each test uses a fresh Sandbox: its zygote starts lazily, so "no process started" means the Sandbox
still has no zygote and the test process has no new child.
"""

from __future__ import annotations

import math
import os

import pytest

from tests.conftest import process_tree_of
from z3sandbox_kernel import Limits, Sandbox

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def fresh():
    before = {p.pid for p in process_tree_of(os.getpid())}
    sandbox = Sandbox(isolation="process")
    yield sandbox
    try:
        assert sandbox.zygote_pid is None, "bad input started the zygote"
        after = {p.pid for p in process_tree_of(os.getpid())}
        assert after <= before, f"bad input started processes: {after - before}"
    finally:
        sandbox.close()


@pytest.mark.parametrize(("changes", "message"), [
    ({"memory_mb": 1}, r"memory_mb=1 is not allowed: it must be at least 64 MB"),
    ({"memory_mb": 63}, r"memory_mb=63 is not allowed"),
    ({"wall_s": 0}, r"wall_s=0 is not allowed: it must be at least 0\.01 s"),
    ({"timeout_s": -1}, r"timeout_s=-1 is not allowed"),
    ({"cpu_s": math.nan}, r"cpu_s=nan is not allowed"),
    ({"wall_s": math.inf}, r"wall_s=inf is not allowed"),
    ({"output_kb": 0}, r"output_kb=0 is not allowed"),
    ({"memory_mb": 100.5}, r"memory_mb must be a whole number"),
    ({"cpu_s": "5"}, r"cpu_s must be a number, not str"),
    ({"wall_s": True}, r"wall_s must be a number, not bool"),
], ids=lambda value: str(value) if isinstance(value, dict) else "")
def test_nonsense_limits_raise_value_error_saying_what_is_allowed(changes, message):
    with pytest.raises(ValueError, match=message):
        Limits(**changes)


def test_unknown_limit_names_are_refused():
    with pytest.raises(ValueError, match="unknown limits: bogus_s"):
        Limits.from_dict({"bogus_s": 1})


@pytest.mark.parametrize(("scripts", "kwargs", "message"), [
    (42, {}, r"scripts must be a str or a list of str, not int"),
    (b"solve()", {}, r"scripts must be a str or a list of str, not bytes"),
    ([], {}, r"no candidates: the list of scripts is empty"),
    (["solve()", 7], {}, r"candidate 1 is a int, not a str"),
    ("   \n", {}, r"candidate 0 is empty"),
    (["solve()", "solve()"], {"k": 4}, r"pass a single script with k"),
    ("solve()", {"k": 0}, r"k must be a positive whole number, not 0"),
    ("solve()", {"k": True}, r"k must be a positive whole number, not True"),
    ("solve()", {"k": 2.0}, r"k must be a positive whole number, not 2\.0"),
    ("solve()", {"jobs": 0}, r"jobs must be a positive whole number, not 0"),
    ("solve()", {"jobs": -2}, r"jobs must be a positive whole number, not -2"),
    ("solve()", {"language": "lisp"}, r"language must be one of python, smt2, not 'lisp'"),
    ("solve()", {"seed": "abc"}, r"seed must be bytes, bytearray or memoryview, not str"),
    ("solve()", {"limits": {"wall_s": 1}}, r"limits must be a Limits, not dict"),
    ("solve()", {"isolation": "kernel"}, r"this Sandbox runs at isolation 'process'"),
    ("solve()", {"require": {"landlok"}}, r"require: unknown layer 'landlok' \(did you mean 'landlock'\?\)"),
    ("solve()", {"require": "bogus"}, r"require: unknown layer 'bogus'; the layers are capabilities, "),
    ("solve()", {"require": 7}, r"require must be a layer name or a set of them, not int"),
    ("solve()", {"require": [b"seccomp"]}, r"require holds layer names \(str\), not bytes"),
], ids=["int", "bytes", "empty-list", "non-str-item", "blank", "k-with-list", "k-zero", "k-bool",
        "k-float", "jobs-zero", "jobs-negative", "language", "str-seed", "limits-dict", "isolation",
        "require-typo", "require-str-unknown", "require-int", "require-bytes"])
def test_bad_run_arguments_raise_value_error_and_start_nothing(fresh, scripts, kwargs, message):
    with pytest.raises(ValueError, match=message):
        fresh.run(scripts, **kwargs)


def test_oversized_script_is_refused_before_any_process(fresh):
    with pytest.raises(ValueError, match=r"candidate 0 is 2048 bytes; the limit is 1 KB \(script_kb\)"):
        fresh.run("#" * 2048, limits=Limits(script_kb=1))


def test_default_script_limit_is_one_mebibyte(fresh):
    with pytest.raises(ValueError, match=r"the limit is 1024 KB"):
        fresh.run("#" * (1024 * 1024 + 1))


def test_bad_input_to_the_async_api_starts_nothing(fresh):
    import asyncio

    with pytest.raises(ValueError, match="no candidates"):
        asyncio.run(fresh.run_async([]))


def test_unknown_isolation_level_is_refused():
    with pytest.raises(ValueError, match="isolation must be 'kernel' or 'process'"):
        Sandbox(isolation="vm")


def test_closed_sandbox_refuses_to_run():
    sandbox = Sandbox(isolation="process")
    sandbox.close()
    with pytest.raises(RuntimeError, match="closed"):
        sandbox.run("solve()")
    assert sandbox.zygote_pid is None


def test_require_takes_one_layer_name_as_a_str_or_a_set_of_names():
    from z3sandbox_kernel import RunOptions

    assert RunOptions(require="seccomp").require == ("seccomp",)
    assert RunOptions(require=["seccomp", "landlock", "seccomp"]).require == ("landlock", "seccomp")
    with pytest.raises(ValueError, match="did you mean 'seccomp'"):
        Sandbox(isolation="process", require="secomp")


def test_module_level_run_refuses_bad_input_before_any_process():
    from z3sandbox_kernel import run

    before = {p.pid for p in process_tree_of(os.getpid())}
    with pytest.raises(ValueError, match="unknown layer 'landlok'"):
        run("solve()", require={"landlok"})
    with pytest.raises(ValueError, match="jobs must be a positive whole number"):
        run("solve()", jobs=0, isolation="process")
    with pytest.raises(ValueError, match="memory_mb"):
        run("solve()", limits=Limits(memory_mb=1))
    after = {p.pid for p in process_tree_of(os.getpid())}
    assert after <= before
