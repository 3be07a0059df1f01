"""Placeholder until the launcher lands (same commit series)."""

from __future__ import annotations

from typing import Any


class Sandbox:
    def __init__(self, **kwargs: Any) -> None:
        raise NotImplementedError


def run(scripts: Any, **kwargs: Any) -> Any:
    raise NotImplementedError
