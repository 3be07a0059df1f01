"""Candidate text made safe to put in an agent's prompt: inside a block it cannot close, with
nothing a terminal or a reader's eye would take for something else.

A block opens with ``<untrusted-output id="NONCE">`` and closes with ``</untrusted-output
id="NONCE">``, the nonce random per feedback: a candidate cannot know it, and any tag-like
``<untrusted-output`` or ``</untrusted-output`` in its text is escaped as well, so its text never
holds a marker.  Control characters (ESC, C0 and C1 but newline and tab, CR, DEL), format
characters (bidi overrides and isolates, zero-width ones) and line or paragraph separators are
shown as Python escapes: ``\\x1b``, ``\\r``, ``\\u202e``.
"""

from __future__ import annotations

import re
import secrets
import unicodedata

TAG = "untrusted-output"
# Anything a reader could take for one of our markers, whatever its case or spacing.
_MARKER_LIKE = re.compile(r"<(\s*/?\s*untrusted-output)", re.IGNORECASE)
_SHOWN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
_KEPT = frozenset("\n\t")


def new_nonce() -> str:
    """A marker id no candidate can guess (64 random bits)."""
    return secrets.token_hex(8)


def opening(nonce: str) -> str:
    return f'<{TAG} id="{nonce}">'


def closing(nonce: str) -> str:
    return f'</{TAG} id="{nonce}">'


def _escaped(ch: str) -> str:
    if ch in _KEPT or unicodedata.category(ch) not in _SHOWN_CATEGORIES:
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(text: str) -> str:
    """``text`` with every character that is not plain text escaped, and no marker in it."""
    if not (text.isprintable() or all(ch in _KEPT or ch.isprintable() for ch in text)):
        text = "".join(_escaped(ch) for ch in text)
    return _MARKER_LIKE.sub(r"\\x3c\1", text)


def block(body: str, nonce: str) -> str:
    """``body`` (already ``shown``) between the markers of ``nonce``."""
    return f"{opening(nonce)}\n{body}\n{closing(nonce)}"
