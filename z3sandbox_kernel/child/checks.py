"""Every check a script makes, sent to the zygote as it happens (``CheckFrame``, ``CheckModelFrame``).

A script that enumerates (``while s.check() == sat: ... s.add(block)``) ends on ``unsat``; what it
found is in its earlier checks.  Each check leaves the child as a frame the moment it ends, and
the model the script read of a sat check as a second frame once the harness has read it (when the
script lets go of it, or after the script), so a candidate killed by a limit keeps what it found.

A check's assertions travel as ranges into the texts sent so far: an enumeration's hundredth check
sends its one new blocking clause, not its hundred assertions again.  The zygote rebuilds each
check's assertions from the ranges, and its verifier checks that check's model against them.

At most ``MAX_CHECKS`` checks are sent; their texts and models together at most
``CHECKS_REPORT_BYTES`` (past it a check travels without them, and is not verified).  Writing a
frame touches nothing of z3's: the script runs as it would plainly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

from ..protocol import CHECKS_REPORT_BYTES, MAX_CHECKS, CheckFrame, CheckModelFrame, Ranges, join_pairs
from . import models

Send = Callable[[dict[str, Any]], None]
# z3's Z3_L_TRUE, Z3_L_FALSE; anything else "unknown"
VERDICTS: dict[int, Literal["sat", "unsat"]] = {1: "sat", -1: "unsat"}


def ranges(indices: Iterable[int]) -> Ranges:
    """Indices as [start, end) runs: a prefix is one run."""
    runs: list[tuple[int, int]] = []
    for index in indices:
        if runs and runs[-1][1] == index:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs


class CheckLog:
    """The checks sent so far, and the texts their ranges point into."""

    def __init__(self, send: Send | None) -> None:
        self.send = send
        self.made = 0  # every check the script made, sent or not
        self.size = 0  # bytes of texts and models sent
        # Each text sent, by the identity of the mirror's own string (kept alive here, so an
        # identity is never reused), and its index in the zygote's list.
        self.asserts: dict[int, tuple[str, int]] = {}
        self.declarations: dict[int, tuple[str, int]] = {}

    def sends(self) -> bool:
        """Whether the next check would be sent: a check past the cap need not be decided."""
        return self.send is not None and self.made < MAX_CHECKS

    def check(self, result: int, line: Callable[[], int | None],
              active: Callable[[], tuple[list[str], list[str]] | None]) -> int | None:
        """Send a check that just ended; its index, or None when it was not sent (past the cap).
        ``line`` and ``active`` (the solver's assert and declaration texts, None when not known)
        are asked for only when it is sent: past the cap, a check costs a count."""
        index, self.made = self.made, self.made + 1
        if self.send is None or index >= MAX_CHECKS:
            return None
        asserts, declarations = active() or (None, [])
        frame: CheckFrame = {"type": "check", "index": index, "verdict": _verdict(result),
                             "line": line(), "asserts": [], "declarations": [], "assertions": None,
                             "declared": []}
        new_size = self.size + sum(map(len, asserts or ())) + sum(map(len, declarations))
        if asserts is not None and new_size <= CHECKS_REPORT_BYTES:
            frame["assertions"] = ranges(_indices(asserts, self.asserts, frame["asserts"]))
            frame["declared"] = ranges(_indices(declarations, self.declarations,
                                                frame["declarations"]))
            self.size += sum(map(len, frame["asserts"])) + sum(map(len, frame["declarations"]))
        self.send(dict(frame))
        return index

    def model(self, index: int | None, fields: models.ModelFields) -> None:
        """Send the model the script read of the sat check ``index`` (from ``check``)."""
        if self.send is None or index is None:
            return
        self.size += fields.size + 2 * len(fields.byte_values)
        if self.size > CHECKS_REPORT_BYTES:
            return
        frame: CheckModelFrame = {"type": "check_model", "index": index, "model": fields.model,
                                  "byte_constants": fields.byte_constants,
                                  "byte_runs": fields.byte_runs(),
                                  "model_smt2": join_pairs(fields.model_smt2)}
        self.send(dict(frame))


def _verdict(result: int) -> Literal["sat", "unsat", "unknown"]:
    return VERDICTS.get(result, "unknown")


def _indices(texts: list[str], sent: dict[int, tuple[str, int]], new: list[str]) -> list[int]:
    """Each text's index in the zygote's list, appending to ``new`` the texts not sent before."""
    indices = []
    for text in texts:
        known = sent.get(id(text))
        if known is None:
            known = sent[id(text)] = (text, len(sent))
            new.append(text)
        indices.append(known[1])
    return indices
