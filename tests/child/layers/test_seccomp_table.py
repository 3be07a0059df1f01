"""The seccomp program as a table, on every architecture: the classic-BPF program ``seccomp``
assembles, run here number by number as the kernel runs it (no filter is loaded), and the names it
lists checked against libseccomp's."""

from __future__ import annotations

import pyseccomp
import pytest

from z3sandbox_kernel.child.layers import seccomp

from .bpf import ALL_ONES, emulate, program_for


@pytest.mark.parametrize("arch", [0xC000003E, 0xC00000B7], ids=["x86_64", "aarch64"])
def test_every_number_gets_its_table_answer_on_both_architectures(arch: int) -> None:
    """The binary search, number by number: EPERM for the classes, ENOSYS for clone3 and past the
    table, the argument checks for the rest that are listed, and every other number allowed."""
    numbers = seccomp.numbers_for(arch, pyseccomp.resolve_syscall)
    program = program_for(arch)
    denied = {numbers[n] for _why, names in seccomp.DENIED for n in names if numbers[n] >= 0}
    commands = {numbers[name] for name, _why, _values in seccomp.COMMANDS}
    checked = {number for name, number in numbers.items() if number >= 0} - denied - commands
    for nr in range(seccomp.NEWEST_REVIEWED + 50):
        answer = emulate(program, nr, args=(ALL_ONES,) * 6)
        if nr in denied:
            assert answer == "EPERM", nr
        elif nr == numbers["clone3"] or nr > seccomp.NEWEST_REVIEWED:
            assert answer == "ENOSYS", nr
        elif nr in checked:  # a PID, a "which" or clone flags of -1: refused
            assert answer == "EPERM", nr
        elif nr in commands:  # command -1 is no refused command
            assert answer == "ALLOW", nr
        else:
            assert answer == "ALLOW", nr
    assert emulate(program, numbers["kill"], args=(4242, 9)) == "ALLOW"  # 4242: our PID
    for name, _why, values in seccomp.COMMANDS:
        for value in values:
            assert emulate(program, numbers[name], args=(0, (7 << 32) | value)) == "EPERM"
    assert emulate(program, numbers["ioctl"], args=(0, 0x5401)) == "ALLOW"  # TCGETS
    assert emulate(program, 0, arch=0x40000003) == "KILL"  # i386


@pytest.mark.parametrize("arch", [0xC000003E, 0xC00000B7], ids=["x86_64", "aarch64"])
def test_no_path_through_the_program_is_long(arch: int) -> None:
    """The binary search: the kernel walks a path per number when it loads the filter (its cache)
    and on every call whose arguments count; a linear chain of the table would be ~150 long."""
    program = program_for(arch)
    for nr in range(seccomp.NEWEST_REVIEWED + 2):
        assert emulate(program, nr, max_steps=32) != "TOO LONG", nr


def test_the_unified_numbers_agree_with_libseccomp_where_it_knows_them() -> None:
    """Names libseccomp 2.5.4 lacks; a newer libseccomp must agree on both architectures."""
    for arch in (0xC000003E, 0xC00000B7):
        for name, number in seccomp.UNIFIED.items():
            known = int(pyseccomp.resolve_syscall(arch, name))
            assert known < 0 or known == number, (arch, name, known)
    assert max(seccomp.UNIFIED.values()) == seccomp.NEWEST_REVIEWED


def test_every_listed_name_exists_on_some_architecture() -> None:
    """A typo would silently drop a call from the filter."""
    numbers = [seccomp.numbers_for(arch, pyseccomp.resolve_syscall)
               for arch in (0xC000003E, 0xC00000B7)]
    missing = [n for n in seccomp.all_names() if all(table[n] < 0 for table in numbers)]
    assert missing == ["ipc"], missing  # the SysV multiplexer of i386, s390x and others
