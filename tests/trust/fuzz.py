"""The differential fuzzer's parts (test_differential.py, bench/differential.py): SMT-LIB scripts
that mix what a reader can get wrong with what a checker can get wrong, and Z3Py scripts that divide
by their own variables.

SMT-LIB: command heads written plainly, quoted (``(|reset|)``), after a comment (``(; c⏎pop 1)``)
or after odd blanks; quoted symbols and strings that hold ``) ; (assert false)``, ``""``, line
breaks, unicode and control characters; comments that hold parentheses, NUL and control
characters; scopes (push, pop, too many pops), (reset), (reset-assertions) and redeclarations after
them; named terms, datatypes, ``define-fun`` shadowing, ``:global-declarations``; division and
modulo by variables and by zero (z3 leaves them free); checks as (check-sat), (check-sat l ...),
(check-sat-assuming (...)) and (check-sat-using TACTIC).

The answer of a plain run is read from what z3 prints: no fragment a script can print (an echo, a
model's symbol) is a line that reads sat, unsat or unknown, so the last such line is z3's answer.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from z3sandbox_kernel import CandidateResult, Verdict

ANSWERS = ("sat", "unsat", "unknown")
# Symbols by sort, as a script declares them: plain, and quoted ones whose text a reader could
# take for commands, a comment, a string or the end of one.
INTS = ("x", "|a b|", "|) ; (assert false)|", "|(reset)|")
REALS = ("r", "|é|", "|;\n(pop 1)|")
BOOLS = ("p", "|q\"|", "|check-sat|")
TRICKY_TEXT = (") ; (assert false) (check-sat)", 'a ""quoted"" word', "(reset)", "é ∀ 𝔸",
               "\x01\x7f tab\tend", "line\nbreak", "|bar|", "; not a comment", "")
COMMENTS = ("; a ) comment (", "; (assert false)", "; NUL \x00 inside", "; \x1b[31m ansi",
            "; é ∀", "; |unclosed", '; "unclosed', ";")
BLANKS = (" ", "\t", "\r\n", "\n  ")
TACTICS = ("smt", "(then simplify smt)", "(using-params smt :random_seed 3)")


def _quoted_head(head: str) -> str:
    return f"|{head}|"


@st.composite
def command(draw: st.DrawFn, head: str, rest: str) -> str:
    """``(head rest)`` with its head written one of the ways z3 reads as that head."""
    form = draw(st.sampled_from(["plain", "plain", "plain", "quoted", "comment", "blank"]))
    if form == "quoted":
        opening = f"({_quoted_head(head)}"
    elif form == "comment":
        opening = f"({draw(st.sampled_from(COMMENTS))}\n{head}"
    elif form == "blank":
        opening = f"({draw(st.sampled_from(BLANKS))}{head}"
    else:
        opening = f"({head}"
    return f"{opening}{' ' + rest if rest else ''})"


@st.composite
def int_term(draw: st.DrawFn, depth: int = 0) -> str:
    leaf = st.one_of(st.sampled_from(INTS), st.integers(-6, 9).map(_numeral))
    if depth >= 2 or draw(st.booleans()):
        return draw(leaf)
    op = draw(st.sampled_from(["+", "-", "*", "div", "mod", "div", "mod"]))
    left = draw(int_term(depth + 1))
    right = draw(st.one_of(int_term(depth + 1), st.just("0")))
    if op == "*":  # linear: a numeral on one side
        right = draw(st.integers(-3, 3).map(_numeral))
    return f"({op} {left} {right})"


@st.composite
def real_term(draw: st.DrawFn) -> str:
    left = draw(st.sampled_from(REALS))
    right = draw(st.sampled_from([*REALS, "0.0", "2.0"]))
    return draw(st.sampled_from([left, f"(/ {left} {right})", f"(+ {left} {right})"]))


def _numeral(value: int) -> str:
    return str(value) if value >= 0 else f"(- {-value})"


@st.composite
def formula(draw: st.DrawFn, names: int = -1) -> str:
    """An assertion's formula; named ``n<names>`` now and then (``names`` >= 0)."""
    kind = draw(st.sampled_from(["int", "int", "int", "real", "bool", "datatype", "const"]))
    if kind == "int":
        relation = draw(st.sampled_from(["<", "<=", ">", ">=", "="]))
        text = f"({relation} {draw(int_term())} {draw(int_term())})"
    elif kind == "real":
        relation = draw(st.sampled_from(["<", ">", "="]))
        text = f"({relation} {draw(real_term())} {draw(real_term())})"
    elif kind == "bool":
        first, second = draw(st.sampled_from(BOOLS)), draw(st.sampled_from(BOOLS))
        text = draw(st.sampled_from([first, f"(not {first})", f"(or {first} {second})",
                                     f"(=> {first} (> x 2))"]))
    elif kind == "datatype":
        text = draw(st.sampled_from(["(= c red)", "(not (= c red))", "(= c green)"]))
    else:
        text = draw(st.sampled_from(["false", "true", "(> k 3)", "(= k 3)"]))
    if names >= 0 and draw(st.integers(0, 3)) == 0:
        text = f"(! {text} :named n{names})"
    return text


def declarations() -> list[tuple[str, str]]:
    """Every symbol's declaration, as (head, rest)."""
    found = [("declare-const", f"{name} Int") for name in INTS]
    found += [("declare-const", f"{name} Real") for name in REALS]
    found += [("declare-const", f"{name} Bool") for name in BOOLS]
    found += [("declare-datatypes", "((Color 0)) (((red) (green) (blue)))"),
              ("declare-const", "c Color"), ("define-fun", "k () Int 4")]
    return found


@st.composite
def smt2_script(draw: st.DrawFn) -> str:
    """One script: its declarations (some inside a scope, or again after a reset), its
    assertions, scopes, resets, echoes and checks, each command's head written one way or
    another, with comments between commands."""
    parts: list[tuple[str, str]] = []
    if draw(st.integers(0, 9)) == 0:  # z3's API refuses it (docs/fidelity.md): an error
        parts.append(("set-option", ":global-declarations true"))
    if draw(st.integers(0, 4)) == 0:
        parts.append(("set-option", ":produce-unsat-cores true"))
    parts += declarations()
    names = depth = 0
    careless = draw(st.integers(0, 3)) == 0  # pops past its pushes, asks for models it has not
    for _ in range(draw(st.integers(2, 14))):
        action = draw(st.sampled_from(
            ["assert"] * 6 + ["push", "pop", "check", "check", "echo", "reset", "reset-assertions",
                              "shadow", "get-model"]))
        if action == "assert":
            parts.append(("assert", draw(formula(names))))
            names += 1
        elif action == "push":
            count = draw(st.sampled_from(["", "1", "2"]))
            parts.append(("push", count))
            depth += int(count or 1)
        elif action == "pop" and (depth or careless):
            count = draw(st.sampled_from(["", "1", "2"]))
            parts.append(("pop", count if careless else str(min(depth, int(count or 1)))))
            depth = max(0, depth - int(count or 1))
        elif action == "check":
            parts.append(draw(check()))
        elif action == "echo":
            parts.append(("echo", '"' + draw(st.sampled_from(TRICKY_TEXT)).replace('"', '""') + '"'))
        elif action == "reset":
            parts.append(("reset", ""))
            depth = 0
            if draw(st.integers(0, 5)) or not careless:
                parts += declarations()
        elif action == "reset-assertions":
            parts.append(("reset-assertions", ""))
        elif action == "shadow":  # a definition in a scope, then the name declared again
            parts += [("push", "1"), ("define-fun", "s () Int 5"), ("assert", "(> s 4)"),
                      ("pop", "1"), ("declare-const", "s Int"),
                      ("assert", draw(st.sampled_from(["(< s 0)", "(= s 5)", "(> s k)"])))]
        elif action == "get-model" and careless:
            parts.append(("get-model", ""))
    parts.append(draw(check()))
    if draw(st.booleans()):
        parts.append(("get-model", ""))
    pieces = []
    for head, rest in parts:
        if draw(st.integers(0, 5)) == 0:
            pieces.append(draw(st.sampled_from(COMMENTS)) + "\n")
        pieces.append(draw(command(head, rest)) + draw(st.sampled_from(["\n", "\n", " ", "\r\n"])))
    return "".join(pieces)


@st.composite
def check(draw: st.DrawFn) -> tuple[str, str]:
    form = draw(st.sampled_from(["plain", "plain", "plain", "literals", "assuming", "using"]))
    literal = draw(st.sampled_from([*BOOLS, "(not p)"]))
    if form == "literals" and not literal.startswith("("):
        return "check-sat", literal
    if form == "assuming":
        return "check-sat-assuming", f"({literal})"
    if form == "using":
        return "check-sat-using", draw(st.sampled_from(TACTICS))
    return "check-sat", ""


@st.composite
def python_script(draw: st.DrawFn) -> str:
    """A Z3Py script an LLM writes when it divides by a variable: 2-4 variables of one sort, a few
    bounds, ``/`` or ``%`` between them; it prints its check's answer on its last line."""
    real = draw(st.booleans())
    count = draw(st.integers(2, 4))
    names = ["a", "b", "c", "d"][:count]
    sort = "Reals" if real else "Ints"
    lines = [f"{', '.join(names)} = {sort}('{' '.join(names)}')"]
    ops = ["/"] if real else ["/", "%"]
    for _ in range(draw(st.integers(1, 3))):
        left, right = draw(st.sampled_from(names)), draw(st.sampled_from([*names, "0"]))
        op = draw(st.sampled_from(ops))
        relation = draw(st.sampled_from(["==", ">", "<", "!="]))
        lines.append(f"s.add({left} {op} {right} {relation} {draw(st.integers(-3, 5))})")
    for name in draw(st.lists(st.sampled_from(names), max_size=3, unique=True)):
        low = draw(st.integers(-3, 1))
        lines.append(f"s.add({name} >= {low}, {name} <= {low + draw(st.integers(0, 4))})")
    lines.append("print(s.check())")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------ plain runs

@dataclass(frozen=True)
class Plain:
    answer: str | None  # the last sat / unsat / unknown z3 printed; None when it printed none
    output: str  # what it printed
    # What z3's own front end printed for the same text in a fresh process (``front_end``): what
    # the sandbox's output is compared with (the z3 binary picks other model values now and then,
    # and prints diagnostics to stderr, where the API prints them with the rest).
    front_end: str = ""


def z3_binary() -> Path:
    """The ``z3`` command of the z3 the sandbox runs (the z3-solver wheel installs it)."""
    return Path(sys.executable).parent / "z3"


def plain_smt2(texts: list[str], timeout_s: float = 30) -> list[Plain]:
    """Each text as ``z3 file.smt2`` answers it, and as z3's front end prints it in a fresh
    process: a fork of a server in which ``import z3`` is all that was done (as the zygote's
    candidates are), not of this process, whose z3 other tests may have used."""
    with ThreadPoolExecutor(os.cpu_count() or 1) as threads:
        answers = list(threads.map(lambda text: _binary(text, timeout_s), texts))
    printed = _front_ends(texts)
    return [Plain(_last_answer(output), output, front) for output, front in zip(answers, printed,
                                                                                    strict=True)]


def _binary(text: str, timeout_s: float) -> str:
    with tempfile.TemporaryDirectory(prefix="z3sb-diff-") as folder:
        path = Path(folder) / "script.smt2"
        path.write_bytes(text.encode("utf-8"))
        done = subprocess.run([str(z3_binary()), str(path)], capture_output=True, timeout=timeout_s,
                              check=False)
    return done.stdout.decode("utf-8", "replace")


# z3's front end in a fresh process for each text: a fork of a server that did nothing but
# ``import z3`` (as the zygote's candidates are), not of this process, whose z3 other tests may have
# used.  Written here because multiprocessing's forkserver runs the parent's main module again in
# every worker (a benchmark script's imports: 0.2 s a text).  Frames are a 4-byte length and UTF-8.
_FRONT_END_SERVER = r"""
import os, struct, sys
import z3

def front_end(text):
    # A NUL is read as the binary reads it (a character): the API would stop at it.
    try:
        output = z3.Z3_eval_smtlib2_string(z3.main_ctx().ref(), text.replace("\x00", "\x01"))
    except z3.Z3Exception as exc:
        output = exc.value
    return output.decode("utf-8", "replace") if isinstance(output, bytes) else str(output)

def read_exactly(fd, size):
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            return None
        data += chunk
    return data

# Answers go out on a copy of stdout; z3 itself may print to stdout ((set-option
# :regular-output-channel "stdout")), which is pointed at /dev/null so it cannot break a frame.
answers = os.dup(1)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
while (header := read_exactly(0, 4)) is not None:
    text = read_exactly(0, struct.unpack(">I", header)[0]).decode("utf-8")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        with os.fdopen(write, "wb") as out:
            out.write(front_end(text).encode("utf-8"))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as result:
        printed = result.read()
    os.waitpid(pid, 0)
    frame = memoryview(struct.pack(">I", len(printed)) + printed)
    while frame:
        frame = frame[os.write(answers, frame):]
"""


def _front_ends(texts: list[str]) -> list[str]:
    """``texts`` through z3's front end, a fresh fork of the server for each, one server a CPU."""
    def serve(share: list[tuple[int, str]]) -> list[tuple[int, str]]:
        server = subprocess.Popen([sys.executable, "-c", _FRONT_END_SERVER], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        assert server.stdin is not None and server.stdout is not None
        printed = []
        try:
            for index, text in share:
                body = text.encode("utf-8")
                server.stdin.write(struct.pack(">I", len(body)) + body)
                server.stdin.flush()
                size = struct.unpack(">I", server.stdout.read(4))[0]
                printed.append((index, server.stdout.read(size).decode("utf-8")))
        finally:
            server.stdin.close()
            server.wait(timeout=60)
        return printed

    servers = max(1, min(os.cpu_count() or 1, len(texts)))
    shares = [list(enumerate(texts))[start::servers] for start in range(servers)]
    with ThreadPoolExecutor(servers) as threads:
        done = dict(pair for share in threads.map(serve, shares) for pair in share)
    return [done[index] for index in range(len(texts))]


def plain_python(scripts: list[str], timeout_s: float = 60) -> list[Plain]:
    """``python script.py`` with ``from z3 import *`` and ``s = Solver()`` first, as the sandbox
    prepends them."""
    def one(script: str) -> Plain:
        done = subprocess.run([sys.executable, "-c", "from z3 import *\ns = Solver()\n" + script],
                              capture_output=True, text=True, timeout=timeout_s, check=False)
        return Plain(_last_answer(done.stdout), done.stdout + done.stderr)

    with ThreadPoolExecutor(os.cpu_count() or 1) as threads:
        return list(threads.map(one, scripts))


def _last_answer(output: str) -> str | None:
    answers = [line for line in output.splitlines() if line in ANSWERS]
    return answers[-1] if answers else None


def judged(plain: Plain, candidate: CandidateResult) -> str | None:
    """What the sandbox got wrong about a script z3 answered ``plain.answer`` to, or None: a
    confirmed verdict that is not z3's answer, a true answer disputed or called an invalid model,
    the sandbox's own failure, or an error where the plain run had none."""
    verdict = candidate.verdict.value if candidate.verdict is not None else None
    if candidate.verdict is Verdict.INTERNAL_ERROR:
        return f"the sandbox failed: {candidate.reason}"
    if candidate.confirmed_by and verdict != plain.answer:
        return (f"confirmed {verdict} by {', '.join(candidate.confirmed_by)}, "
                f"but z3 answered {plain.answer}")
    if plain.answer == "sat" and candidate.verdict is Verdict.INVALID_MODEL:
        return f"z3's sat called an invalid model: {candidate.reason}"
    if candidate.disputed and verdict == plain.answer:
        return f"z3's {verdict} disputed: {candidate.disputed}"
    # z3's own errors: the binary's, or its API's (which refuses :global-declarations: fidelity.md)
    failed_plainly = any(word in printed for printed in (plain.output, plain.front_end)
                         for word in ("(error ", "Traceback (most recent call last)"))
    if candidate.verdict in (Verdict.RUNTIME_ERROR, Verdict.SYNTAX_ERROR) and not failed_plainly:
        return f"an error of the sandbox's shown as the script's: {candidate.reason}"
    return None
