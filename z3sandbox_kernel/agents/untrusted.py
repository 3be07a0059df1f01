"""Candidate text made safe to put in an agent's prompt: inside a block it cannot close, with
nothing a terminal or a reader's eye would take for something else.

A block opens with ``<untrusted-output id="NONCE">`` and closes with ``</untrusted-output
id="NONCE">``, the nonce random per feedback: a candidate cannot know it, and any tag-like
``<untrusted-output`` or ``</untrusted-output`` in its text is escaped as well, so its text never
holds a marker.  Every other character is shown by the one printable rule
(``presentation/printable.py``, which every view applies): control characters but newline and
tab, format characters, line or paragraph separators as escapes: ``\\x1b``, ``\\x0d``, ``\\u202e``.
"""

from __future__ import annotations

import re
import secrets

from ..presentation.printable import printable_lines

TAG = "untrusted-output"
# Anything a reader could take for one of our markers, whatever its case or spacing.
_MARKER_LIKE = re.compile(r"<(\s*/?\s*untrusted-output)", re.IGNORECASE)


def new_nonce() -> str:
    """A marker id no candidate can guess (64 random bits)."""
    return secrets.token_hex(8)


def opening(nonce: str) -> str:
    return f'<{TAG} id="{nonce}">'


def closing(nonce: str) -> str:
    return f'</{TAG} id="{nonce}">'


def shown(text: str) -> str:
    """``text`` with every character that is not plain text escaped, and no marker in it."""
    return _MARKER_LIKE.sub(r"\\x3c\1", printable_lines(text))


def block(body: str, nonce: str) -> str:
    """``body`` (already ``shown``) between the markers of ``nonce``."""
    return f"{opening(nonce)}\n{body}\n{closing(nonce)}"
