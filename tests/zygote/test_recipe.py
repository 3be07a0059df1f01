"""The isolation recipe is the one source of the order: the report, the layers and the steps agree."""

from __future__ import annotations

import inspect

from z3sandbox_kernel.child import steps
from z3sandbox_kernel.child.bootstrap import BEFORE_LAYERS
from z3sandbox_kernel.child.layers import Layer, Step, When
from z3sandbox_kernel.protocol import KERNEL_LAYERS, NAMESPACE_LAYERS
from z3sandbox_kernel.protocol.roles import Level
from z3sandbox_kernel.zygote import recipe
from z3sandbox_kernel.zygote.recipe import RECIPE, Where


def test_the_report_lists_the_recipes_steps_in_order() -> None:
    assert tuple(name for row in RECIPE if not row.layer for name in row.reports) == NAMESPACE_LAYERS
    assert tuple(layer.NAME for layer in steps.layers_at(Level.KERNEL)) == KERNEL_LAYERS
    assert tuple(layer.NAME for layer in steps.layers_at(Level.PROCESS)) == ("environment", "rlimits")


def test_every_step_of_every_side_is_one_step_type() -> None:
    sides = (recipe.ZYGOTE_STEPS, recipe.INIT_STEPS, BEFORE_LAYERS)
    assert all(type(step) is Step for side in sides for step in side)
    assert [row.name for row in RECIPE if not row.layer] == [step.name for side in sides for step in side]


def test_steps_run_zygote_then_init_then_child() -> None:
    order = [Where.ZYGOTE, Where.INIT, Where.CHILD]
    places = [order.index(step.where) for step in RECIPE]
    assert places == sorted(places)


def test_the_child_takes_its_own_steps_before_its_layers_and_seccomp_last() -> None:
    child = [step.name for step in RECIPE if step.where is Where.CHILD]
    assert child[: len(BEFORE_LAYERS)] == [step.name for step in BEFORE_LAYERS]
    assert RECIPE[-1].name == "seccomp"


def test_only_the_limits_wait_for_the_request() -> None:
    assert {"rlimits"} == steps.WITH_REQUEST
    assert all(step.when is When.ONCE for step in recipe.ZYGOTE_STEPS)


def test_every_child_layer_has_the_same_interface() -> None:
    for layer in steps.CHILD_LAYERS:
        module: Layer = layer  # a module, structurally a Layer
        assert isinstance(module.WHEN, When) and isinstance(module.PROCESS_LEVEL, bool)
        for verb in ("probe", "prepare", "apply"):
            assert callable(getattr(module, verb))
        assert list(inspect.signature(module.prepare).parameters) == ["read_only_paths"]


def test_every_step_says_why_it_stands_where_it_stands() -> None:
    assert all(step.why for step in RECIPE)
    assert all(callable(step.apply) for step in (*recipe.ZYGOTE_STEPS, *recipe.INIT_STEPS, *BEFORE_LAYERS))
