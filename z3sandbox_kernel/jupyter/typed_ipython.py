"""IPython's few functions this package calls that IPython leaves unannotated, under the types they
have.  mypy checks an unannotated function's callers against nothing: named here with their real
signatures, every call of the magic and the live display is checked (and the magic keeps its own
signature through the decorators)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from IPython.core import magic_arguments as _magic_arguments
from IPython.core.display_functions import DisplayHandle
from IPython.core.display_functions import display as _display

Method = TypeVar("Method", bound=Callable[..., Any])


class Decorator(Protocol):
    """A decorator that returns the function it was given (with attributes set on it)."""

    def __call__(self, func: Method, /) -> Method: ...


# Each builds a decorator that stores its part of the magic's parser on the function.
magic_arguments: Callable[[], Decorator] = _magic_arguments.magic_arguments
argument: Callable[..., Decorator] = _magic_arguments.argument  # add_argument's flags and keywords
argument_group: Callable[[str], Decorator] = _magic_arguments.argument_group
# The rich display of the frontend; with ``display_id=True`` it returns the handle that updates it.
display: Callable[..., DisplayHandle | None] = _display


class MagicParser(Protocol):
    """What the magic uses of the ``MagicArgumentParser`` that ``magic_arguments`` builds."""

    _actions: list[argparse.Action]

    def parse_argstring(self, argstring: str) -> argparse.Namespace: ...

    def format_usage(self) -> str: ...


def parser_of(magic: Callable[..., Any]) -> MagicParser:
    """The parser ``magic_arguments`` built for ``magic`` (it is the function's ``parser``)."""
    parser: MagicParser = magic.__dict__["parser"]
    return parser
