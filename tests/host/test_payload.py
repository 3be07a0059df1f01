"""byte_N model constants become a payload overlaid on the seed; rule breakers set payload_error."""

from __future__ import annotations

import pytest

from z3sandbox_kernel import Limits, Verdict

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("zygote_is_clean")]

QUICK = Limits(timeout_s=2, wall_s=5, cpu_s=4)


def payload_run(sandbox, script, **kwargs):
    kwargs.setdefault("limits", QUICK)
    candidate = sandbox.run(script, **kwargs)[0]
    assert candidate.verdict is Verdict.SAT, candidate.reason
    return candidate


def test_bytes_are_overlaid_on_the_seed(sandbox):
    candidate = payload_run(sandbox, (
        "b0, b2 = BitVec('byte_0', 8), BitVec('byte_2', 8)\n"
        "s.add(b0 == 0x41, b2 == 0x43)\ns.check()\n"), seed=b"wxyz")
    assert candidate.payload == b"AxCz"
    assert candidate.payload_error is None


def test_integer_bytes_count_too(sandbox):
    candidate = payload_run(sandbox, "b = Int('byte_1'); s.add(b == 255); s.check()", seed=b"\x00\x00\x00")
    assert candidate.payload == b"\x00\xff\x00"


def test_payload_grows_past_the_seed_with_zeros(sandbox):
    candidate = payload_run(sandbox, "b = Int('byte_5'); s.add(b == 7); s.check()", seed=b"ab")
    assert candidate.payload == b"ab\x00\x00\x00\x07"


def test_payload_without_seed(sandbox):
    candidate = payload_run(sandbox, "b = BitVec('byte_3', 8); s.add(b == 1); s.check()")
    assert candidate.payload == b"\x00\x00\x00\x01"


def test_no_byte_constants_means_no_payload(sandbox):
    candidate = payload_run(sandbox, "x = Int('x'); s.add(x == 1); s.check()", seed=b"abc")
    assert candidate.payload is None
    assert candidate.payload_error is None


def test_names_that_only_look_like_bytes_are_ignored(sandbox):
    candidate = payload_run(sandbox, (
        "a, b, c = Ints('byte_x byte_01x mybyte_1')\ns.add(a == 1, b == 2, c == 3)\ns.check()\n"))
    assert candidate.payload is None
    assert candidate.payload_error is None


@pytest.mark.parametrize("seed", [bytearray(b"wxyz"), memoryview(b"wxyz")], ids=["bytearray", "memoryview"])
def test_bytes_like_seeds_are_accepted(sandbox, seed):
    candidate = payload_run(sandbox, "b = BitVec('byte_0', 8); s.add(b == 0x41); s.check()", seed=seed)
    assert candidate.payload == b"Axyz"


def test_str_seed_is_refused(sandbox):
    with pytest.raises(ValueError, match="seed must be bytes"):
        sandbox.run("b = BitVec('byte_0', 8); s.add(b == 0); s.check()", seed="wxyz")


@pytest.mark.parametrize(("declaration", "expected"), [
    ("b = Bool('byte_0'); s.add(b)", "byte_0: of sort bool"),
    ("b = Real('byte_0'); s.add(b == 1)", "byte_0: of sort real"),
    ("b = BitVec('byte_0', 32); s.add(b == 1)", "byte_0: a bit-vector of width 32, not 8"),
    ("b = Int('byte_0'); s.add(b == 256)", "byte_0: value 256 is not a byte (0..255)"),
    ("b = Int('byte_0'); s.add(b == -1)", "byte_0: value -1 is not a byte (0..255)"),
], ids=["bool", "real", "width32", "value256", "negative"])
def test_rule_breaking_byte_leaves_sat_and_names_the_constant(sandbox, declaration, expected):
    candidate = payload_run(sandbox, declaration + "\ns.check()\n", seed=b"seed")
    assert candidate.payload is None
    assert candidate.payload_error is not None
    assert candidate.payload_error.startswith(expected)
    assert candidate.model is not None and "byte_0" in candidate.model


def test_index_past_the_maximum_payload_is_an_error_before_allocation(sandbox):
    candidate = payload_run(sandbox, "b = Int('byte_2000000'); s.add(b == 1); s.check()")
    assert candidate.payload is None
    assert candidate.payload_error == (
        "byte_2000000: index 2000000 is past the maximum payload length of 1048576 bytes")


def test_payload_max_bytes_is_a_limit(sandbox):
    limits = QUICK.replace(payload_max_bytes=4)
    ok = payload_run(sandbox, "b = Int('byte_3'); s.add(b == 1); s.check()", limits=limits)
    assert ok.payload == b"\x00\x00\x00\x01"
    past = payload_run(sandbox, "b = Int('byte_4'); s.add(b == 1); s.check()", limits=limits)
    assert past.payload is None
    assert "byte_4" in past.payload_error


def test_one_bad_byte_spoils_the_payload_and_counts_the_others(sandbox):
    candidate = payload_run(sandbox, (
        "a, b, c = Bool('byte_0'), Real('byte_1'), BitVec('byte_2', 8)\n"
        "s.add(a, b == 1, c == 3)\ns.check()\n"))
    assert candidate.payload is None
    assert candidate.payload_error.startswith("byte_0")
    assert "(and 1 more)" in candidate.payload_error


def test_run_result_payload_is_the_best_sat_candidates(sandbox):
    result = sandbox.run([
        "x = Int('x'); s.add(x > 1, x < 0); s.check()",
        "b = BitVec('byte_0', 8); s.add(b == 0x61); s.check()",
        "b = BitVec('byte_0', 8); s.add(b == 0x62); s.check()",
    ], seed=b"zz", limits=QUICK)
    assert result.payload == b"az"
    assert result.payloads == [b"az", b"bz"]


def test_seed_larger_than_payload_max_is_refused(sandbox):
    with pytest.raises(ValueError, match="payload_max_bytes"):
        sandbox.run("x = Int('x'); s.check()", seed=b"12345", limits=QUICK.replace(payload_max_bytes=4))
