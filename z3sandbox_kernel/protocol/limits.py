"""The one model of limits: defaults, units, help text and validation.

The magic's options, the traitlets config, the CLI and the docs all read their defaults and help
from ``LIMIT_FIELDS``; nothing else retypes a default.  This module is imported on every side (host,
zygote, child), so it imports nothing from Jupyter.  ``Limits`` crosses each process boundary as
itself: msgspec encodes the dataclass and decodes it back (``__post_init__`` validating), with no
dict in between (protocol/messages.py ``RunRequest.limits``, zygote/forker.py ``Order``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

# z3 plus the Python harness need about this much address space above the zygote's own size to
# create a context, start the solver's timer thread and solve a trivial problem (measured: 40 MB
# is enough; below 64 MB ordinary scripts start failing in ways that look like user bugs).
MIN_MEMORY_MB = 64


def number(value: float) -> str:
    """A limit's value as every face writes it: ``5``, ``0.5``, ``1048576`` (whole numbers in full,
    never ``1.04858e+06``)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


Number = TypeVar("Number", int, float)


def _limit(default: Number, minimum: float, unit: str, help_text: str, flag: str) -> Number:
    return field(
        default=default,
        metadata={"minimum": minimum, "unit": unit, "help": help_text, "flag": flag},
    )


# dataclasses.replace, its keywords checked when the copy is made (``Limits.__post_init__``), not
# by mypy: a caller's keywords are the user's (a magic flag, a run() keyword).
_replace: Callable[..., Limits] = dataclasses.replace


@dataclass(frozen=True)
class Limits:
    """Hard limits for one candidate.  Every name carries its unit."""

    timeout_s: float = _limit(
        5.0, 0.001, "s", "solver timeout for every check() the script makes", "--timeout"
    )
    wall_s: float = _limit(
        10.0, 0.01, "s", "wall-clock limit for the whole candidate, killed at the deadline", "--wall"
    )
    cpu_s: float = _limit(
        8.0, 0.01, "s", "CPU-time limit (RLIMIT_CPU; the hard limit is one second later)", "--cpu"
    )
    memory_mb: int = _limit(
        512, MIN_MEMORY_MB, "MB", "address space a candidate may add to the zygote's", "--memory"
    )
    output_kb: int = _limit(
        64, 1, "KB", "head and tail kept of each of stdout and stderr; the middle is dropped", "--output"
    )
    output_max_mb: int = _limit(
        16, 1, "MB", "hard cap on stdout and stderr together; more ends the candidate", "--output-max"
    )
    files: int = _limit(64, 16, "", "open file descriptors (RLIMIT_NOFILE)", "--files")
    disk_mb: int = _limit(
        64, 1, "MB", "scratch disk (a private tmpfs; one inode per 8 KB) at the kernel level", "--disk"
    )
    file_size_mb: int = _limit(
        16, 1, "MB", "largest file a candidate may write (RLIMIT_FSIZE)", "--file-size"
    )
    threads: int = _limit(
        64, 4, "", "threads per candidate (RLIMIT_NPROC, where it is effective)", "--threads"
    )
    verify_s: float = _limit(
        10.0, 0.01, "s", "budget of the checks of a candidate's answer in a verifier (model, "
        "unsat, core, objectives, cross-check); past it the answer stays unconfirmed", "--verify-time"
    )
    script_kb: int = _limit(1024, 1, "KB", "largest script accepted", "--script-size")
    payload_max_bytes: int = _limit(
        1 << 20, 1, "bytes", "largest byte_N payload built from a model", "--payload-max"
    )

    def __post_init__(self) -> None:
        for spec in dataclasses.fields(self):
            value = getattr(self, spec.name)
            minimum = spec.metadata["minimum"]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{spec.name} must be a number, not {type(value).__name__}")
            if not math.isfinite(value) or value < minimum:
                unit = spec.metadata["unit"]
                raise ValueError(
                    f"{spec.name}={value!r} is not allowed: it must be at least {minimum}"
                    f"{(' ' + unit) if unit else ''} ({spec.metadata['help']})"
                )
            if spec.type in ("int", int):
                if int(value) != value:
                    raise ValueError(f"{spec.name} must be a whole number, not {value!r}")
                # 512.0 is kept as 512: it travels as a JSON integer (msgspec decodes an int field
                # from nothing else) and every reason reads "512 MB"
                object.__setattr__(self, spec.name, int(value))

    def replace(self, **changes: float | None) -> Limits:
        """A copy with some limits changed; ``None`` values are ignored."""
        return _replace(self, **{k: v for k, v in changes.items() if v is not None})

    def to_dict(self) -> dict[str, float]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Limits:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown limits: {', '.join(sorted(unknown))}")
        return cls(**data)


LIMIT_FIELDS: tuple[dataclasses.Field[Any], ...] = dataclasses.fields(Limits)
DEFAULT_LIMITS = Limits()
