"""RunOptions: one object for what a run is asked, built by every face, checked as it is made."""

from __future__ import annotations

import dataclasses
import json

import pytest

from z3sandbox_kernel import Limits, RunOptions, Sandbox, Verdict
from z3sandbox_kernel.contracts.options import RUN_OPTION_FIELDS, RUN_OPTIONS, argparse_specs, resolve

QUICK = Limits(timeout_s=2, wall_s=30, cpu_s=10)
SAT = "x = Int('x')\ns.add(x > 1)\n"


def test_the_keywords_build_the_same_options_as_the_object() -> None:
    built = RunOptions.of(None, k=3, race=True, require="seccomp", labels=["a"], seed=bytearray(b"hi"))
    assert built == RunOptions(k=3, race=True, require=("seccomp",), labels=("a",), seed=b"hi")
    assert built.replace(race=False).race is False and built.race is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.race = False


def test_an_unknown_keyword_is_a_type_error_saying_which_was_meant() -> None:
    with pytest.raises(TypeError, match=r"unknown run option 'rcae' \(did you mean 'race'\?\)"):
        RunOptions.of(rcae=True)


def test_a_value_that_makes_no_sense_on_its_own_is_refused_as_the_options_are_made() -> None:
    with pytest.raises(ValueError, match="models must be a positive whole number, not 0"):
        RunOptions(models=0)
    with pytest.raises(ValueError, match="isolation must be 'kernel' or 'process', not 'vm'"):
        RunOptions(isolation="vm")
    with pytest.raises(ValueError, match="the seed is 9 bytes, over payload_max_bytes=4"):
        RunOptions(seed=b"123456789", limits=Limits(payload_max_bytes=4))


def test_every_flag_of_the_faces_is_a_field_or_a_view_option() -> None:
    fields = {spec.name: spec for spec in dataclasses.fields(RunOptions)}
    for option in RUN_OPTIONS:
        if option.name in fields:
            assert fields[option.name].metadata["flag"] == option.flag
            assert fields[option.name].default == option.default
    assert {option.name for option in RUN_OPTIONS} - set(RUN_OPTION_FIELDS) == {"quiet"}
    assert all(spec.metadata["help"] for spec in fields.values())


def test_a_command_line_resolves_to_run_options() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    for flags, keywords in argparse_specs("cli"):
        parser.add_argument(*flags, **keywords)
    args = parser.parse_args(["--smt2", "--no-verify", "-k", "4", "--expected", "sat"])
    options = resolve(args, limits=QUICK)
    assert (options.language, options.verify, options.k, options.expected) == ("smt2", False, 4, ("sat",))
    assert options.limits == QUICK and options.models == 1


def test_a_run_takes_the_options_and_keywords_that_change_them(process_sandbox: Sandbox, tmp_path) -> None:
    options = RunOptions(limits=QUICK, labels=("first", "second"), record_dir=tmp_path, verify=False)
    result = process_sandbox.run([SAT, SAT], options, verify=True)
    assert [c.label for c in result] == ["first", "second"]
    assert all(c.verdict is Verdict.SAT and c.verified for c in result)
    header = json.loads((tmp_path / f"{result.run_id}.jsonl").read_text().splitlines()[0])
    assert header["options"]["verify"] is True
