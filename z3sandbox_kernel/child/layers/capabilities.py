"""Drop every capability and set no_new_privs.

In the user namespace the candidate starts as uid 0 with a full capability set *in that namespace*;
without namespaces it starts with whatever the zygote had (usually nothing).  Either way it ends with
empty effective/permitted/inheritable/ambient sets, no_new_privs set (which Landlock and seccomp
require of an unprivileged process), and, where CAP_SETPCAP allows it, an empty bounding set and
locked securebits so that nothing, not even an execve of a set-uid file, can bring a capability back.

Without CAP_SETPCAP (an unprivileged run without a user namespace) the bounding set cannot be
shrunk.  That is reported, and harmless: the permitted set is empty, no_new_privs stops file
capabilities and set-uid bits from applying, and seccomp refuses execve anyway.
"""

from __future__ import annotations

import errno

from ...contracts.oscalls import capget, capset_empty, prctl
from ...protocol import LayerReport
from . import LayerSetupError, Policy, When, report

NAME = "capabilities"
WHEN = When.PER_CANDIDATE
PROCESS_LEVEL = False
WHY = "every capability dropped and no_new_privs set, which Landlock and seccomp need"

_PR_CAPBSET_READ = 23
_PR_CAPBSET_DROP = 24
_PR_GET_SECUREBITS = 27
_PR_SET_SECUREBITS = 28
_PR_SET_NO_NEW_PRIVS = 38
_PR_GET_NO_NEW_PRIVS = 39
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_SETPCAP = 8

# SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP, SECBIT_NO_CAP_AMBIENT_RAISE, each with its _LOCKED bit,
# and SECBIT_KEEP_CAPS_LOCKED (keep_caps stays off): uid 0 means nothing special from now on.
_SECUREBITS_LOCKED = 0b0000_0011 | 0b0000_1100 | 0b1100_0000 | 0b0010_0000

_last_cap: int | None = None


def _find_last_cap() -> int:
    """The highest capability number this kernel knows (``/proc/sys/kernel/cap_last_cap``)."""
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        cap = 0
        while True:  # PR_CAPBSET_READ fails with EINVAL past the last capability
            try:
                prctl(_PR_CAPBSET_READ, cap + 1)
            except OSError:
                return cap
            cap += 1


def prepare(read_only_paths: tuple[str, ...] = ()) -> LayerReport:
    """Read the kernel's capability count once, in the zygote (the child may have no /proc)."""
    global _last_cap
    _last_cap = _find_last_cap()
    return probe()


def probe() -> LayerReport:
    """Always available: prctl and capset exist on every Linux the package supports."""
    try:
        effective, _, _ = capget()
        nnp = prctl(_PR_GET_NO_NEW_PRIVS)
    except OSError as exc:
        return report(NAME, False, error=str(exc))
    setpcap = "can" if effective >> _CAP_SETPCAP & 1 else "cannot (no CAP_SETPCAP)"
    return report(
        NAME, True, f"no_new_privs {'set' if nnp else 'settable'}, {setpcap} clear the bounding set"
    )


def _drop_bounding_set(last_cap: int) -> None:
    """Drop every capability from the bounding set (one prctl each: about 2 us apiece)."""
    for cap in range(last_cap + 1):
        try:
            prctl(_PR_CAPBSET_DROP, cap)
        except OSError as exc:
            if exc.errno != errno.EINVAL:  # EINVAL: a capability this kernel does not have
                raise
    # Spot-check rather than re-read all of them: the first, the most powerful and the last.
    if any(prctl(_PR_CAPBSET_READ, cap) for cap in (0, 21, last_cap)):
        raise LayerSetupError(NAME, "the bounding set still holds capabilities after dropping")


def apply(policy: Policy) -> LayerReport:
    """Lock securebits, empty the bounding set, clear ambient, set no_new_privs, then capset to 0.

    The order matters: securebits and the bounding set need CAP_SETPCAP, which the final capset
    takes away.
    """
    last_cap = _last_cap if _last_cap is not None else _find_last_cap()
    try:
        effective, _, _ = capget()
        bounding_note = ""
        if effective >> _CAP_SETPCAP & 1:
            prctl(_PR_SET_SECUREBITS, prctl(_PR_GET_SECUREBITS) | _SECUREBITS_LOCKED)
            _drop_bounding_set(last_cap)
        else:
            bounding_note = " (bounding set kept: no CAP_SETPCAP)"
        prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)
        prctl(_PR_SET_NO_NEW_PRIVS, 1)
        capset_empty()
        if capget() != (0, 0, 0) or prctl(_PR_GET_NO_NEW_PRIVS) != 1:
            raise LayerSetupError(NAME, "capabilities or no_new_privs did not stick")
    except OSError as exc:
        raise LayerSetupError(NAME, f"could not drop capabilities: {exc}") from None
    return report(NAME, True, f"no_new_privs, 0 capabilities{bounding_note}")
