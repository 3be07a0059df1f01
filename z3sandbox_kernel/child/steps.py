"""The child's part of the isolation recipe: the layers it applies, in order, as module objects.

The zygote prepares these modules once and hands the active ones to every child (zygote/sandboxing.py);
the child's bootstrap applies them in this order (child/bootstrap.py, after its own steps:
session, descriptors, parent-death signal, scratch folder).  zygote/recipe.py shows them as the end
of the whole recipe.  The isolation report's layer names (protocol/messages.py) are the contract's
own list; tests/zygote/test_recipe.py keeps the two in step.
"""

from __future__ import annotations

from ..protocol.roles import Level
from .layers import Layer, When, capabilities, environment, landlock, rlimits, seccomp

# Seccomp stands last: its filter refuses calls the layers before it still make.
CHILD_LAYERS: tuple[Layer, ...] = (environment, rlimits, capabilities, landlock, seccomp)

# Layers applied only once the request is known (a standby or a spare applies them when it comes).
WITH_REQUEST = frozenset(layer.NAME for layer in CHILD_LAYERS if layer.WHEN is When.WITH_REQUEST)


def layers_at(level: Level) -> tuple[Layer, ...]:
    """The child layers applied at an isolation level, in order."""
    return tuple(layer for layer in CHILD_LAYERS if level == Level.KERNEL or layer.PROCESS_LEVEL)
