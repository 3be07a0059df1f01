"""nbval sees JSON outputs as JSON text, so that notebooks/sanitize.cfg reaches them too.

nbval compares every MIME type of an output (all but images, widget views and metadata) and
applies the sanitize patterns only to strings.  A JSON output such as the run document
(``application/vnd.z3sandbox.run+json``, see z3sandbox_kernel/render.py) is a dict, compared as
is: the machine-specific parts in it (the isolation report, the active layers named in a
``blocked`` reason) could not be masked.  Here such values become canonical JSON text (sorted
keys, one line) before nbval sanitizes and compares them; strings are untouched.
"""

from __future__ import annotations

import json
from typing import Any

from nbval.plugin import IPyNbCell

_sanitize_text = IPyNbCell.sanitize


def _sanitize(self: IPyNbCell, value: Any) -> Any:
    if isinstance(value, (dict, list)):
        value = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return _sanitize_text(self, value)


IPyNbCell.sanitize = _sanitize
