"""z3's own SMT-LIB front end, run segment by segment (``Z3_eval_smtlib2_string`` on the main
context, whose command interpreter keeps its state, line and column count from one segment to the
next): the script's text as ``z3 file.smt2`` runs it, its output printed and nothing of it read,
and the few commands the harness asks in private between segments (smt2.py says what it decides
from them).

A private command must leave the front end as a plain run would.  Asking for a model is not
free: z3 completes the model (values for what the check left unassigned) and prints it, making
terms in the script's context, and later checks then find other models.  Measured on 300
generated scripts with several (check-sat): a private (get-model) after each check changed what 7
in 120 printed, a (get-value (true)) 26 in 300; right after the script's own (get-model) of
that check, none in 300.  So the harness asks for an earlier check's model only right after the
script asked for it, and for the last check's at once (no check follows).  (get-info ...) changes
nothing; its :reason-unknown is not the last check's (it stays from an earlier unknown check).
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass

import z3

from . import instrument
from .smt2_text import CHECK_HEADS, Command, error_message

# The private (get-model) is asked only when an error cannot end the process: under
# (set-option :error-behavior immediate-exit) z3 exits on "model is not available".
_CONTINUES = "(:error-behavior continued-execution)"
# Each evaluation starts with z3's output channels reset to its returned string, so a segment that
# sets one (:regular-output-channel, :diagnostic-output-channel) is run whole.
_OUTPUT_CHANNEL = re.compile(r"output[-_]channel", re.IGNORECASE)


@dataclass
class Segment:
    """What running one segment showed: values of the API and of the harness, not its output."""

    error: str | None = None  # its first error, if z3 raised
    fired: bool = False  # the watchdog stopped it (a check outlived the solver timeout)
    seconds: float = 0.0
    # What the (check-sat) that ends it printed, run alone: nothing else of the script is in it
    # (``FrontEnd.run_to``), so only z3 wrote it.
    response: str = ""
    output: str = ""  # what it printed, when z3 did not raise


class FrontEnd:
    """A script's text, run segment by segment up to a command, then to its end."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.done = 0  # offset of the text not run yet
        self.first_error: str | None = None

    def run_to(self, command: Command | None, timeout_s: float | None) -> Segment:
        """Run the text up to and with ``command`` (None: to its end), under ``timeout_s``.  A
        (check-sat) runs alone, after the commands before it: its own response is then the whole
        of what that evaluation printed, which no command of the script (an echo, a symbol a
        model prints) can add to.  Its output is printed as it comes, as in one evaluation."""
        end = len(self.text) if command is None else segment_end(self.text, command)
        if (command is None or command.head not in CHECK_HEADS or command.start < self.done
                or _OUTPUT_CHANNEL.search(self.text, self.done, command.start)):
            # An output channel set in the same evaluation holds for its (check-sat): only then
            # does it print where `z3 file.smt2` prints it
            segment = evaluate(self.text[self.done : end], timeout_s)
        else:
            before = evaluate(self.text[self.done : command.start], timeout_s)
            segment = evaluate(self.text[command.start : end], timeout_s)
            segment.response, segment.error = segment.output, before.error or segment.error
            segment.fired, segment.seconds = before.fired or segment.fired, before.seconds + segment.seconds
        self.done = end
        self.first_error = self.first_error or segment.error
        return segment


def evaluate(text: str, timeout_s: float | None) -> Segment:
    """Run ``text`` in the main context's front end and print its output; z3 runs every command
    even when one fails (whether it raised decides; the output only gives the message shown)."""
    if not text.strip():
        return Segment()
    ctx = z3.main_ctx()
    token = instrument.RUN.watchdog.start(ctx, timeout_s) if timeout_s is not None else None
    started = time.monotonic()
    try:
        output, failed = z3.Z3_eval_smtlib2_string(ctx.ref(), text), False
    except z3.Z3Exception as exc:  # z3 ran every command anyway; the output holds the errors
        output, failed = text_of(exc.value), True
    finally:
        fired = instrument.RUN.watchdog.stop(token) if token is not None else False
    seconds = time.monotonic() - started
    sys.stdout.write(output)
    sys.stdout.flush()
    error = None
    if failed:
        errors = [line for line in output.splitlines() if line.startswith("(error ")]
        error = error_message(errors[0]) if errors else output
    segment = Segment(error, fired, seconds)
    segment.output = output if not failed else ""
    return segment


def private(command: str) -> str:
    """A command the harness asks between the script's own, whose output the script never sees
    (each evaluation starts with z3's output channels reset to the returned string)."""
    try:
        return text_of(z3.Z3_eval_smtlib2_string(z3.main_ctx().ref(), command))
    except z3.Z3Exception as exc:
        return text_of(exc.value)


def model_text() -> str:
    """The front end's model of its last check, asked in private; "" under
    :error-behavior immediate-exit, where "model is not available" would end the process."""
    if _CONTINUES not in private("(get-info :error-behavior)").splitlines():
        return ""
    return private("(get-model)")


def segment_end(text: str, command: Command) -> int:
    """Where a segment ending with ``command`` ends: after it, and after the blanks or the comment
    that end its line when nothing else is on it.  The front end counts the columns of the private
    commands asked after it too; on that line they shift no column the script's errors name."""
    newline = text.find("\n", command.end)
    end = len(text) if newline < 0 else newline
    rest = text[command.end : end].lstrip()
    return end if not rest or rest.startswith(";") else command.end


def text_of(raw: object) -> str:
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
