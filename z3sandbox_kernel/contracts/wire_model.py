"""A model held in its wire form: a result keeps a model's encoded values (``encode_value``) as the
zygote sent them, and decodes them (``decode_value``: a Real's ``Fraction``) only when ``.model``
is read, once.  The record, ``to_json``, the run document (at every live refresh) and the MCP
output write the wire form as it is: a model is encoded once, in the child.

Hand-written (a data descriptor, as ``dataclasses`` documents for descriptor-typed fields): no
library holds a dataclass field in one form and shows it in another.
"""

from __future__ import annotations

from typing import Any, overload

from ..protocol import decode_value, encode_value
from ..protocol.candidate import Model

Decoded = dict[str, object]  # a model as its result shows it: name -> value


class _Kept(dict[str, object]):
    """A decoded model that knows the wire form it came from: set again (``dataclasses.replace``
    copies a result through its fields), it is not encoded again.  Changed in place (a user's
    ``result.model["x"] = 5``), it forgets that form: what is written is what it holds."""

    __slots__ = ("wire",)
    wire: Model | None

    def _changed(self) -> None:
        self.wire = None

    def __setitem__(self, name: str, value: object) -> None:
        self._changed()
        super().__setitem__(name, value)

    def __delitem__(self, name: str) -> None:
        self._changed()
        super().__delitem__(name)

    def __ior__(self, other: Any) -> _Kept:  # type: ignore[misc,override]  # noqa: ANN401  # dict's |=
        self._changed()
        return super().__ior__(other)

    def update(self, *args: Any, **kwargs: object) -> None:  # noqa: ANN401  # dict's own signature
        self._changed()
        super().update(*args, **kwargs)

    def pop(self, *args: Any) -> object:  # noqa: ANN401  # dict's own signature
        self._changed()
        return super().pop(*args)

    def popitem(self) -> tuple[str, object]:
        self._changed()
        return super().popitem()

    def setdefault(self, name: str, default: object = None) -> object:
        self._changed()
        return super().setdefault(name, default)

    def clear(self) -> None:
        self._changed()
        super().clear()


class _WireField:
    """A dataclass field ``name`` holding a model: set decoded (or None) as before, read decoded;
    its wire form is ``wire(obj)``, and ``receive(obj, wire)`` sets it as it came."""

    _required = False  # a field without a default (``FoundModel``)

    def __init__(self) -> None:
        self._wire = self._decoded = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._wire, self._decoded = f"_{name}_wire", f"_{name}_decoded"

    def _read(self, obj: object) -> Decoded | None:
        if obj is None:  # the field's default (dataclasses asks the class)
            if self._required:
                raise AttributeError("a required field")
            return None
        held = vars(obj)
        decoded: Decoded | None = held.get(self._decoded)
        wire: Model | None = held[self._wire]
        if decoded is None and wire is not None:
            kept = _Kept((name, decode_value(value)) for name, value in wire.items())
            kept.wire = wire
            decoded = held[self._decoded] = kept
        return decoded

    def _write(self, obj: object, value: Decoded | None) -> None:
        held = vars(obj)
        held[self._decoded] = value
        if value is None or isinstance(value, _Kept):
            held[self._wire] = None if value is None else value.wire
        else:  # a model given decoded (a test, a caller): encoded here, and again if it changes
            held[self._wire] = {name: encode_value(item) for name, item in value.items()}

    def wire(self, obj: object) -> Model | None:
        """The model as it travels and is saved: name -> ``encode_value(value)``; the form it came
        in while what ``.model`` holds is that model unchanged, else what it holds, encoded."""
        held = vars(obj)
        decoded: Decoded | None = held.get(self._decoded)
        if decoded is not None and not (isinstance(decoded, _Kept) and decoded.wire is not None):
            held[self._wire] = {name: encode_value(item) for name, item in decoded.items()}
        wire: Model | None = held[self._wire]
        return wire

    def receive(self, obj: object, wire: Model | None) -> None:
        """Hold ``wire`` (a model as it came) as it is, to be decoded when first read."""
        held: dict[str, Any] = vars(obj)
        held[self._wire], held[self._decoded] = wire, None


class WireModel(_WireField):
    """A model that may be None (``CandidateResult.model``)."""

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> None: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Decoded | None: ...

    def __get__(self, obj: object, owner: type | None = None) -> Decoded | None:
        return self._read(obj)

    def __set__(self, obj: object, value: Decoded | None) -> None:
        self._write(obj, value)


class FoundModel(_WireField):
    """A model a result must be given (``ModelResult.model``): never None."""

    _required = True

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> None: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Decoded: ...

    def __get__(self, obj: object, owner: type | None = None) -> Decoded | None:
        return self._read(obj)

    def __set__(self, obj: object, value: Decoded) -> None:
        self._write(obj, value)
