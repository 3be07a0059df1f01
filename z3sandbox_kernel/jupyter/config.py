"""``Z3Sandbox``: the magic's defaults as a traitlets ``Configurable``.

Set once per session with ``%config Z3Sandbox.timeout_s = 10``, or in a profile's
``ipython_config.py`` / ``ipython_kernel_config.py`` with ``c.Z3Sandbox.timeout_s = 10``.  The limit
traits are made from ``limits.LIMIT_FIELDS`` (name, default, minimum, unit, help) and the run option
traits from ``options.RUN_OPTIONS``, so there is one model of each; the magic's options override
these values for one run.  The grace traits (``watchdog_grace_s`` ...) are made from
``host.plan.Graces``, as jupyter_client makes ``shutdown_wait_time`` a trait: how long the kernel
waits on a sandbox process before it acts on its own.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from traitlets import Bool, CaselessStrEnum, Float, HasTraits, Int, List, TraitType, Unicode
from traitlets.config import Configurable

from ..contracts.limits import LIMIT_FIELDS, Limits
from ..contracts.options import RunOption, options_for
from ..host.plan import Graces


def _limit_trait(spec: dataclasses.Field[Any]) -> TraitType[Any, Any]:
    unit = spec.metadata["unit"]
    help_text = f"{spec.metadata['help']} ({unit or 'count'}; magic option {spec.metadata['flag']})"
    default: Any = spec.default
    kind = Int if spec.type in ("int", int) else Float
    return kind(default, min=spec.metadata["minimum"], help=help_text).tag(config=True)


def _grace_trait(spec: dataclasses.Field[Any]) -> TraitType[Any, Any]:
    default: Any = spec.default
    return Float(default, min=0.0, help=f"{spec.metadata['help']} (seconds)").tag(config=True)


def _option_trait(option: RunOption) -> TraitType[Any, Any]:
    help_text = f"{option.help} (magic option {option.flag}; default {option.default_text()})"
    trait: TraitType[Any, Any]
    if option.kind in ("switch", "negated"):
        trait = Bool(option.default, help=help_text)
    elif option.kind == "count":
        trait = Int(option.default, allow_none=True, min=1, help=help_text)
    else:
        trait = CaselessStrEnum(list(option.choices), default_value=option.default,
                                allow_none=True, help=help_text)
    return trait.tag(config=True)


class _Z3SandboxOptions(Configurable):
    """The defaults that are neither limits nor run options."""

    if TYPE_CHECKING:  # the run option traits, added below from RUN_OPTIONS
        jobs: int | None
        verify: bool
        cores: bool
        plain: bool
        models: int
        cross_check: str | None
        isolation: str | None
        quiet: bool
        record_scripts: bool

    require = List(
        Unicode(), help="isolation layers that must be active, or no candidate runs"
    ).tag(config=True)
    record_dir = Unicode(
        None, allow_none=True,
        help="write a record of every run to this folder (<run_id>.jsonl; z3sandbox_kernel.load_runs "
             "reads them back)",
    ).tag(config=True)
    updates_per_s = Float(
        10.0, min=0.5, help="most refreshes a second of the live display (updates are batched)"
    ).tag(config=True)

    def limits(self, **overrides: object) -> Limits:
        """The configured limits with ``overrides`` (None values ignored); ValueError if invalid."""
        values = {spec.name: getattr(self, spec.name) for spec in LIMIT_FIELDS}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return Limits(**values)

    def graces(self) -> Graces:
        """How long the kernel waits on a sandbox process (the ``*_grace_s`` traits)."""
        return Graces(**{spec.name: getattr(self, spec.name) for spec in dataclasses.fields(Graces)})

    @classmethod
    def class_get_help(cls, inst: HasTraits | None = None) -> str:
        """What ``%config Z3Sandbox`` prints: the limits, then the everyday options, then the
        grace periods apart (how long the kernel waits on a sandbox process: rarely changed),
        rather than traitlets' one alphabetical list."""
        traits = cls.class_traits(config=True)
        limits = {spec.name for spec in LIMIT_FIELDS}
        graces = {spec.name for spec in dataclasses.fields(Graces)}
        groups = [("Limits (each also a magic option, for one run)", "", limits),
                  ("Run options and the live display", "", set(traits) - limits - graces),
                  ("Grace periods (rarely changed)", "How long the kernel waits on a sandbox "
                   "process before it acts on its own.", graces)]
        lines = [f"{cls.__name__} options", ""]
        for title, about, names in groups:  # "=" under a title: %config strips a leading "--"
            lines += [title, "=" * len(title), *([about] if about else [])]
            lines += [cls.class_get_trait_help(traits[name], inst) for name in sorted(names)]
            lines.append("")
        return "\n".join(lines).rstrip("\n")


# The configurable class itself: the options above plus one trait per limit, named like the limit.
Z3Sandbox: type[_Z3SandboxOptions] = type(
    "Z3Sandbox",
    (_Z3SandboxOptions,),
    {
        "__module__": __name__,
        "__doc__": "Defaults of the %%z3sandbox magic: limits, isolation and run options.",
        **{option.name: _option_trait(option) for option in options_for("config")},
        **{spec.name: _limit_trait(spec) for spec in LIMIT_FIELDS},
        **{spec.name: _grace_trait(spec) for spec in dataclasses.fields(Graces)},
    },
)
