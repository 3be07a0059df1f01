"""nbval sees JSON outputs as JSON text, so that notebooks/sanitize.cfg reaches them too, and a
run's display as the final state it is updated to (see the end of this file).

nbval compares every MIME type of an output (all but images, widget views and metadata) and
applies the sanitize patterns only to strings.  A JSON output such as the run document
(``application/vnd.z3sandbox.run+json``, see z3sandbox_kernel/presentation/render.py) is a dict, compared as
is: the machine-specific parts in it (the isolation report, the active layers named in a
``blocked`` reason) could not be masked.  Here such values become canonical JSON text (sorted
keys, one line) before nbval sanitizes and compares them; strings are untouched.
"""

from __future__ import annotations

import json
from typing import Any

from nbval.plugin import IPyNbCell, IPyNbFile

_sanitize_text = IPyNbCell.sanitize


def _sanitize(self: IPyNbCell, value: Any) -> Any:
    if isinstance(value, (dict, list)):
        value = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return _sanitize_text(self, value)


IPyNbCell.sanitize = _sanitize


# A run's display is shown once (display_data with a display_id) and updated in place
# (update_display_data) until it holds the final result; a saved notebook holds the final state in
# that one output.  nbval keeps the first display_data and drops the updates.  So from a display
# with an id on, the cell's messages are held back in order, each update is folded into the
# display it names, and all are released when the cell ends: nbval compares what Jupyter saves.
_get_kernel_message = IPyNbFile.get_kernel_message


def _with_display_updates(self: IPyNbFile, timeout: Any = None, stream: str = "iopub") -> Any:
    if stream != "iopub":
        return _get_kernel_message(self, timeout=timeout, stream=stream)
    ready: list[Any] = self.__dict__.setdefault("_z3sandbox_ready", [])
    held: list[Any] = self.__dict__.setdefault("_z3sandbox_held", [])
    shown: dict[str, Any] = self.__dict__.setdefault("_z3sandbox_shown", {})
    while not ready:
        message = _get_kernel_message(self, timeout=timeout, stream=stream)
        kind, content = message["msg_type"], message["content"]
        display_id = (content.get("transient") or {}).get("display_id")
        if kind == "update_display_data" and display_id in shown:
            shown[display_id]["content"].update(data=content["data"], metadata=content["metadata"])
            continue
        if kind == "display_data" and display_id:
            shown[display_id] = message
        if not shown:
            ready.append(message)
        elif kind == "status" and content.get("execution_state") == "idle":
            ready.extend([*held, message])
            held.clear()
            shown.clear()
        else:
            held.append(message)
    return ready.pop(0)


IPyNbFile.get_kernel_message = _with_display_updates
