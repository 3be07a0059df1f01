"""The isolation recipe is the one source of the order: the report, the layers and the steps agree."""

from __future__ import annotations

import importlib
import inspect

from z3sandbox_kernel.child.layers import Layer
from z3sandbox_kernel.protocol import KERNEL_LAYERS, NAMESPACE_LAYERS, PROCESS_LAYERS
from z3sandbox_kernel.zygote import recipe
from z3sandbox_kernel.zygote.recipe import CHILD_STEPS, RECIPE, When, Where


def test_the_report_lists_the_recipes_steps_in_order() -> None:
    assert recipe.NAMESPACE_LAYERS == NAMESPACE_LAYERS
    assert recipe.child_layers("kernel") == KERNEL_LAYERS
    assert recipe.child_layers("process") == PROCESS_LAYERS


def test_steps_run_zygote_then_init_then_child() -> None:
    order = [Where.ZYGOTE, Where.INIT, Where.CHILD]
    places = [order.index(step.where) for step in RECIPE]
    assert places == sorted(places)


def test_seccomp_is_the_last_step_before_user_code() -> None:
    assert RECIPE[-1].name == "seccomp"


def test_only_the_limits_wait_for_the_request() -> None:
    assert {"rlimits"} == recipe.WITH_REQUEST
    assert all(step.when is When.ONCE for step in recipe.ZYGOTE_STEPS)


def test_every_child_layer_has_the_same_interface() -> None:
    for step in CHILD_STEPS:
        module = importlib.import_module(f"z3sandbox_kernel.child.layers.{step.name}")
        layer: Layer = module  # a module, structurally a Layer
        assert step.name == layer.NAME
        for verb in ("probe", "prepare", "apply"):
            assert callable(getattr(layer, verb))
        assert list(inspect.signature(module.prepare).parameters) == ["read_only_paths"]


def test_every_step_says_why_it_stands_where_it_stands() -> None:
    assert all(step.why for step in RECIPE)
    assert all(step.apply is not None for step in RECIPE if not step.layer)
