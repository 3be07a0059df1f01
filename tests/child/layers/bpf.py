"""The seccomp layer's classic-BPF program, assembled for an architecture and run on one system
call as the kernel runs it: the seccomp tests read the filter's answers without loading it."""

from __future__ import annotations

import errno

import pyseccomp

from z3sandbox_kernel.child.layers import seccomp

ALL_ONES = (1 << 64) - 1  # -1 in every argument: an unfiltered call fails harmlessly on its own


def program_for(arch: int) -> list[tuple[int, int, int, int]]:
    insns, _rules = seccomp._assemble(arch, seccomp.numbers_for(arch, pyseccomp.resolve_syscall))
    return [(c, int(jt), int(jf), k if isinstance(k, int) else 4242)  # 4242: our PID
            for c, jt, jf, k in insns]


def emulate(program: list[tuple[int, int, int, int]], nr: int, arch: int | None = None,
            args: tuple[int, ...] = (0,) * 6, max_steps: int = 10_000) -> str:
    """Run the classic-BPF program on one seccomp_data, the way the kernel does."""
    data = {0: nr, 4: arch if arch is not None else program[1][3]}
    for i, arg in enumerate(args):
        data[16 + 8 * i], data[20 + 8 * i] = arg & 0xFFFFFFFF, arg >> 32
    acc, pc = 0, 0
    for _step in range(max_steps):
        code, jt, jf, k = program[pc]
        if code == 0x20:
            acc, pc = data[k], pc + 1
        elif code == 0x06:
            return {0x7FFF0000: "ALLOW", 0x80000000: "KILL"}.get(k) or errno.errorcode[k & 0xFFFF]
        elif code == 0x05:  # JA
            pc += 1 + k
        else:
            taken = {0x15: acc == k, 0x25: acc > k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += 1 + (jt if taken else jf)
    return "TOO LONG"
