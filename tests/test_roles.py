"""Process roles and kill reasons: one enum each, with the strings the wire and saved runs use."""

from __future__ import annotations

import json

from z3sandbox_kernel.options import KILL_REASONS
from z3sandbox_kernel.roles import STOPS, ZYGOTE_KILLS, Kill, Role


def test_every_kill_reason_is_documented_and_every_documented_one_exists() -> None:
    assert set(Kill) == set(KILL_REASONS)
    assert set(Kill) >= ZYGOTE_KILLS >= STOPS


def test_members_are_their_strings_on_the_wire() -> None:
    assert json.dumps({"kill": Kill.FILE_SIZE, "role": Role.RUN}) == '{"kill": "file_size", "role": "run"}'
    assert f"{Role.SPARE}-{3}" == "spare-3" and str(Kill.WALL) == "wall"
    assert Kill("race") is Kill.RACE and Kill.CANCEL == "cancel"


def test_only_trees_forked_before_their_request_wait_for_it() -> None:
    assert {role for role in Role if role.ahead} == {Role.STANDBY, Role.SPARE}


def test_process_names_fit_the_kernels_comm() -> None:
    assert all(0 < len(role.process_name) <= 15 for role in Role)
    assert Role.STANDBY.process_name != Role.RUN.process_name != Role.SPARE.process_name
