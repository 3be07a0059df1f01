"""Capabilities on the real kernel: nothing left, nothing to regain."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from z3sandbox_kernel.child.layers import capabilities
from z3sandbox_kernel.contracts.oscalls import CLONE_NEWUSER, unshare

from . import missing_feature, run_sandboxed

LAYERS = (capabilities,)
_CAP_SETPCAP = 8


@pytest.fixture(autouse=True)
def _prepared() -> None:
    capabilities.prepare()


def _status() -> dict[str, int]:
    """The capability sets and no_new_privs, as /proc/self/status shows them."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key.startswith("Cap"):
            fields[key] = int(value, 16)
        elif key == "NoNewPrivs":
            fields[key] = int(value)
    return fields


def _enter_user_namespace() -> None:
    unshare(CLONE_NEWUSER)


def test_probe_is_always_available() -> None:
    probe = capabilities.probe()
    assert probe["active"], probe
    assert "bounding set" in probe["detail"]


def test_apply_leaves_no_capability_and_sets_no_new_privs(tmp_path: Path) -> None:
    outcome = run_sandboxed(_status, LAYERS, str(tmp_path))
    assert outcome.ok, outcome
    status = outcome.value
    assert status["NoNewPrivs"] == 1
    for key in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert status[key] == 0, key
    had_setpcap = _status()["CapEff"] >> _CAP_SETPCAP & 1
    if had_setpcap:  # root here: the bounding set can, and must, be emptied
        assert status["CapBnd"] == 0
        assert outcome.reports[0]["detail"] == "no_new_privs, 0 capabilities"
    else:  # unprivileged without a user namespace: reported, not silently skipped
        assert "bounding set kept" in outcome.reports[0]["detail"]


def test_inside_a_user_namespace_everything_is_dropped(tmp_path: Path) -> None:
    """The zygote's situation: uid 0 with every capability in a fresh user namespace."""
    outcome = run_sandboxed(_status, LAYERS, str(tmp_path), before=_enter_user_namespace)
    if "unshare" in outcome.setup_error:
        missing_feature(f"user namespaces unavailable: {outcome.setup_error}")
    assert outcome.ok, outcome
    assert outcome.reports[0]["detail"] == "no_new_privs, 0 capabilities"
    assert {k: v for k, v in outcome.value.items() if k.startswith("Cap")} == dict.fromkeys(
        ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"), 0
    )


def test_privileged_operations_fail_afterwards(tmp_path: Path) -> None:
    def privileged() -> list[str]:
        results = []
        for name, action in (
            ("setgroups", lambda: os.setgroups([])),
            ("chown", lambda: os.chown(tmp_path, 12345, 12345)),
        ):
            try:
                action()
                results.append(f"{name}: allowed")
            except PermissionError:
                results.append(f"{name}: denied")
        return results

    # Outside a user namespace, so that uid 12345 is a valid (mapped) owner: as root this shows
    # the dropped CAP_SETGID and CAP_CHOWN.
    outcome = run_sandboxed(privileged, LAYERS, str(tmp_path))
    # (A new user namespace would still hand back a full set inside it: seccomp refuses unshare.)
    assert outcome.value == ["setgroups: denied", "chown: denied"], outcome
