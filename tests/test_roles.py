"""Process roles and kill reasons: one enum each, with the strings the wire and saved runs use."""

from __future__ import annotations

import json

from z3sandbox_kernel.protocol.roles import STOPS, ZYGOTE_KILLS, Kill, Role


def test_every_kill_reason_says_what_it_means() -> None:
    assert all(kill.description and kill.description != kill.value for kill in Kill)
    assert Kill("cpu").description.startswith("the CPU-time limit")
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
