"""What every test of the child side shares."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
import z3

from z3sandbox_kernel.child import harness, smt2_text, verify


@pytest.fixture(scope="module")
def prepared() -> None:
    """This process prepared as the zygote prepares itself before it forks a candidate (z3 loaded,
    its main context not made): a test module that forks candidates uses it."""
    harness.prepare()


@pytest.fixture(autouse=True)
def pristine_main_context() -> Iterator[None]:
    """After a test, z3's main context is gone again, as in the zygote a candidate is forked from:
    tests that verify in this process (as the verifier service does in its own) would otherwise
    hand their terms and named assertions to the next ``run_child``'s fork.  The service drops its
    state between checks the same way (service.refresh)."""
    yield
    if z3.z3._main_ctx is not None:
        verify.forget_texts()
        smt2_text.forget_texts()
        z3.z3._main_ctx = None
        gc.collect()
