"""The limits, as the contracts' layer names them: the one ``Limits`` type lives in
``protocol/limits.py``, since it crosses every process boundary as it is (host -> zygote -> fork
server -> candidate and verifier), decoded by msgspec into ``Limits`` where it arrives."""

from __future__ import annotations

from ..protocol.limits import DEFAULT_LIMITS, LIMIT_FIELDS, MIN_MEMORY_MB, Limits, number

__all__ = ["DEFAULT_LIMITS", "LIMIT_FIELDS", "MIN_MEMORY_MB", "Limits", "number"]
