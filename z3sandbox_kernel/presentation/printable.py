"""The one rule for showing text a candidate wrote: shown, never obeyed.

Control characters (C0, DEL, C1), format characters (bidi overrides and isolates, zero-width ones,
soft hyphen, tags), line and paragraph separators, private-use, surrogate and unassigned code points
are shown as escapes (``\\x1b``, ``\\u202e``, ``\\U000e0041``); everything else is shown as it is.
``keep`` lets a multi-line view keep its newlines and tabs.

Every view applies it: the text and HTML tables, the CLI's headers, the agents' feedback
(``agents/untrusted.py``) and, in TypeScript, the labextension (``labextension/src/printable.ts``);
both are tested against the same cases (``tests/data/printable_cases.json``).  The categories
come from ``unicodedata``, so a code point assigned after this Python's Unicode version is shown
escaped (``Cn``), never raw: the safe side.
"""

from __future__ import annotations

import unicodedata

# The Unicode general categories shown escaped.
ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})


def escape(ch: str) -> str:
    """One character as its escape: ``\\xNN`` below U+0100, ``\\uNNNN``, else ``\\UNNNNNNNN``."""
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def escaped(ch: str) -> bool:
    """Whether the rule shows ``ch`` as an escape."""
    return unicodedata.category(ch) in ESCAPED_CATEGORIES


def printable(text: str, keep: str = "") -> str:
    """``text`` with every character the rule escapes shown as its escape, except those in
    ``keep`` (``"\\n\\t"`` for a block of lines)."""
    if text.isprintable():  # no Cc, Cf, Zl, Zp, Co, Cs, Cn at all: the common case, at C speed
        return text
    # Each distinct character once, then one translate: a megabyte of stdout stays fast.
    table = {ord(ch): escape(ch) for ch in set(text) if ch not in keep and escaped(ch)}
    return text.translate(table) if table else text


def printable_lines(text: str) -> str:
    """Multi-line text with its newlines and tabs kept, every other character the rule escapes
    shown escaped (a CR too: a candidate's line never redraws the one before it)."""
    return printable(text, keep="\n\t")
