"""``Z3Sandbox``: the magic's defaults as a traitlets ``Configurable``.

Set once per session with ``%config Z3Sandbox.timeout_s = 10``, or in a profile's
``ipython_config.py`` / ``ipython_kernel_config.py`` with ``c.Z3Sandbox.timeout_s = 10``.  The limit
traits are made from ``limits.LIMIT_FIELDS`` (name, default, minimum, unit, help), so there is one
model of limits; the magic's options override these values for one run.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from traitlets import Bool, CaselessStrEnum, Float, Int, List, TraitType, Unicode
from traitlets.config import Configurable

from ..limits import LIMIT_FIELDS, Limits


def _limit_trait(spec: dataclasses.Field[Any]) -> TraitType[Any, Any]:
    unit = spec.metadata["unit"]
    help_text = f"{spec.metadata['help']} ({unit or 'count'}; magic option {spec.metadata['flag']})"
    default: Any = spec.default
    kind = Int if spec.type in ("int", int) else Float
    return kind(default, min=spec.metadata["minimum"], help=help_text).tag(config=True)


class _Z3SandboxOptions(Configurable):
    """The defaults that are not limits."""

    isolation = CaselessStrEnum(
        ["kernel", "process"],
        default_value=None,
        allow_none=True,
        help="isolation level: 'kernel' (namespaces, Landlock, seccomp) or 'process' (rlimits "
        "only); None picks the best this machine supports",
    ).tag(config=True)
    require = List(
        Unicode(), help="isolation layers that must be active, or no candidate runs"
    ).tag(config=True)
    jobs = Int(
        None, allow_none=True, min=1, help="candidates run at once; None: one per CPU"
    ).tag(config=True)
    verify = Bool(True, help="check every sat model in a fresh process").tag(config=True)
    cores = Bool(False, help="ask for unsat cores (tracked assertions)").tag(config=True)
    quiet = Bool(False, help="no live table; show only the final result").tag(config=True)
    updates_per_s = Float(
        10.0, min=0.5, help="most refreshes a second of the live display (updates are batched)"
    ).tag(config=True)

    def limits(self, **overrides: Any) -> Limits:
        """The configured limits with ``overrides`` (None values ignored); ValueError if invalid."""
        values = {spec.name: getattr(self, spec.name) for spec in LIMIT_FIELDS}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return Limits(**values)


# The configurable class itself: the options above plus one trait per limit, named like the limit.
Z3Sandbox: type[_Z3SandboxOptions] = type(
    "Z3Sandbox",
    (_Z3SandboxOptions,),
    {
        "__module__": __name__,
        "__doc__": "Defaults of the %%z3sandbox magic: limits, isolation and run options.",
        **{spec.name: _limit_trait(spec) for spec in LIMIT_FIELDS},
    },
)
