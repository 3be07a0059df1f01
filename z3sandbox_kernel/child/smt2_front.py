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

import bisect
import re
import sys
import time
from dataclasses import dataclass

import z3

from . import instrument
from .smt2_text import CHECK_HEADS, Command, Reading

# The private (get-model) is asked only when an error cannot end the process: under
# (set-option :error-behavior immediate-exit) z3 exits on "model is not available".
_CONTINUES = "(:error-behavior continued-execution)"
# Each evaluation starts with z3's output channels reset to its returned string, so a segment that
# sets one (:regular-output-channel, :diagnostic-output-channel) is run whole.
_OUTPUT_CHANNEL = re.compile(r"output[-_]channel", re.IGNORECASE)
# z3's parser errors look like: (error "line 4 column 20: unknown constant a")
_POSITION = re.compile(r"line (\d+) column (\d+)")
_BLANKS = " \t\r\n"  # z3's scanner's (a comment is blank in a reading's text)
# Commands that leave a check's model as it was: a private (get-model) after them, at their line's
# end, still reads that check's model.
READ_ONLY = frozenset({"get-model", "get-value", "get-assignment", "get-info", "get-option", "echo",
                       "eval", "simplify", "get-objectives", "get-unsat-core", "get-proof",
                       "get-unsat-assumptions", "display", "help", "labels"})


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
    # The check shared its segment with another command of its line: its response is not read.
    joined: bool = False
    # Nothing after the command asked for in its segment changed its check's model (only commands
    # that read, print or ask): a private command may follow it and read that model.
    last: bool = False


class FrontEnd:
    """A script's reading, run segment by segment up to a command, then to its end.

    z3's command interpreter counts lines and columns on from one evaluation to the next, and each
    evaluation moves the column on by one where it starts: a segment (and a private command) may
    only start at a line break between two commands, where no column the script's errors name
    moves.  So a segment runs up to the line break after the command asked for, and a check runs
    alone (its response then z3's and nothing else) only when it is the one command of its line;
    a check that shares its line with another command runs with them, and its response is not
    read."""

    def __init__(self, reading: Reading) -> None:
        self.text = reading.text
        self.commands = reading.commands
        # Where a segment may end: the first line break after each command, if it comes before
        # the next command.
        self._breaks: list[int] = []
        for command, after in zip(self.commands, [*self.commands[1:], None], strict=True):
            newline = self.text.find("\n", command.end, len(self.text) if after is None else after.start)
            if newline >= 0:
                self._breaks.append(newline)
        self.done = 0  # offset of the text not run yet
        self.first_error: str | None = None

    def run_to(self, command: Command | None, timeout_s: float | None) -> Segment:
        """Run the text up to and with ``command`` (None: to its end) and the rest of its line,
        under ``timeout_s`` a check.  A check that is the one command of its line runs alone,
        after the commands before it: its own response is then the whole of what that
        evaluation printed, which no command of the script (an echo, a symbol a model prints) can
        add to.  The output is printed as it comes, as in one evaluation."""
        text = self.text
        if command is not None and command.end <= self.done:
            return Segment(joined=True)  # it ran with a command before it on its line
        end = len(text) if command is None else self._line_end(command)
        checks = sum(1 for c in self.commands if self.done <= c.start < end and c.head in CHECK_HEADS)
        if timeout_s is not None:
            timeout_s *= max(1, checks)
        after = [c for c in self.commands if command is not None and command.end <= c.start < end]
        alone = command is not None and not after
        last = command is not None and all(c.head in READ_ONLY for c in after)
        start = self._line_start(command) if command is not None and alone else None
        if (command is None or command.head not in CHECK_HEADS or start is None
                or _OUTPUT_CHANNEL.search(text, self.done, command.start)):
            # An output channel set in the same evaluation holds for its check: only then does
            # it print where `z3 file.smt2` prints it.
            segment = evaluate(text[self.done : end], timeout_s)
            segment.joined = command is not None and command.head in CHECK_HEADS
        else:
            before = evaluate(text[self.done : start], timeout_s)
            segment = evaluate(text[start:end], timeout_s)
            segment.response, segment.error = segment.output, before.error or segment.error
            segment.fired, segment.seconds = before.fired or segment.fired, before.seconds + segment.seconds
        segment.last = last
        self.done = end
        self.first_error = self.first_error or segment.error
        return segment

    def _line_end(self, command: Command) -> int:
        """The first line break between commands after ``command`` (or the text's end)."""
        index = bisect.bisect_left(self._breaks, command.end)
        return self._breaks[index] if index < len(self._breaks) else len(self.text)

    def _line_start(self, command: Command) -> int | None:
        """Where ``command``'s own evaluation may start: ``done`` when nothing but blanks comes
        before it, else the line break before it when nothing but blanks is between (None when
        another command is before it on its line)."""
        text = self.text
        if not text[self.done : command.start].strip(_BLANKS):
            return self.done
        newline = text.rfind("\n", self.done, command.start)
        if newline < 0 or text[newline : command.start].strip(_BLANKS):
            return None
        return newline


def evaluate(text: str, timeout_s: float | None) -> Segment:
    """Run ``text`` in the main context's front end and print its output; z3 runs every command
    even when one fails (whether it raised decides; the output only gives the message shown).
    Blanks are run too: z3 counts their line breaks.  Nothing is not: z3 would count a column."""
    if not text:
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


def text_of(raw: object) -> str:
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)


def error_position(message: str) -> tuple[int | None, int | None]:
    """Line and column from a z3 parser message, when it has them."""
    match = _POSITION.search(message)
    if match is None:
        return None, None
    return int(match.group(1)), int(match.group(2))


def at_command_end(reading: Reading, line: int | None, column: int | None) -> bool:
    """Whether z3's error position (``error_position``) is a command's closing parenthesis: z3
    read the command and could not carry it out.  z3 counts columns from 1 on the first line and
    from 0 on the others."""
    if line is None or column is None:
        return False
    text, start = reading.text, 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return False
    offset = start + column - (1 if line == 1 else 0)
    return any(command.end - 1 == offset for command in reading.commands)


def error_message(raw: object) -> str:
    """z3's parser error text without the (error "...") wrapping."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    text = text.strip()
    match = re.fullmatch(r'\(error "(.*)"\)', text, re.DOTALL)
    return match.group(1) if match else text
