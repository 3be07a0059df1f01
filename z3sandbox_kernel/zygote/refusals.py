"""What the sandbox observed of its own refusals, in words for a verdict's reason.

Only the candidate's init sees a seccomp refusal from outside the candidate (supervisor.py), so
``blocked`` is the verdict only when it counted one; an exception, whatever its type or text
(``PermissionError("... seccomp ...")`` raised by the script itself), is the script's failure,
``runtime_error``, and says whether the sandbox could have observed a refusal.
"""

from __future__ import annotations

from ..child.layers import seccomp
from ..protocol.roles import Level


def refused_reason(refused: int, first: int, then: str) -> str:
    """``seccomp refused 3 system calls (the first: socket), as the candidate's init observed;
    then PermissionError: ...``: the count, then what the script raised."""
    calls = "1 system call" if refused == 1 else f"{refused} system calls"
    return (f"seccomp refused {calls} (the first: {seccomp.call_name(first)}), as the candidate's "
            f"init observed; then {then}")


def unobserved_note(refused: int, level: Level, seccomp_active: bool, active_layers: str) -> str:
    """Why a PermissionError is not ``blocked``: what the sandbox could observe, and which layers
    were on (Landlock and file modes refuse too, unobserved)."""
    if refused == 0:
        seen = "the sandbox observed no refused system call"
    elif level != Level.KERNEL:
        seen = "no refusal was observed: the process isolation level has no observer"
    elif not seccomp_active:
        seen = "no refusal was observed: seccomp is not active"
    else:
        seen = "no refusal was observed: this kernel has no seccomp user notification"
    return f" ({seen}; active layers: {active_layers})"
