"""The designs under comparison, each behind the same three calls: ``one()``, ``batch(k)``, ``close()``.

Every call checks the answer it got (sat, with x in 4..9), so a design that fails fast cannot look
fast.  ``one()`` is one candidate, submit to verdict; ``batch(k)`` is one run of K candidates.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from z3sandbox_kernel import CandidateResult, Sandbox, Verdict

# The trivial SAT candidate with a model, as a user would write it (the engine supplies ``s``).
SCRIPT = "x = Int('x')\ns.add(x > 3, x < 10)\n"

# Design (b) and the in-process floor wrap the same script with what the engine gives for free:
# the z3 names and a solver before it, the check and the model as JSON after it.
PRELUDE = "import json\nfrom z3 import *\ns = Solver()\n"
EPILOGUE = (
    "_r = s.check()\n"
    "_out = {'result': str(_r)}\n"
    "if _r == sat:\n"
    "    _m = s.model()\n"
    "    _out['model'] = {d.name(): _m[d].as_long() for d in _m.decls()}\n"
    "print(json.dumps(_out))\n"
)


class BadAnswer(RuntimeError):
    """A design answered something other than sat with 3 < x < 10: its timings would be lies."""


def _check_answer(result: str, model: dict[str, Any] | None) -> None:
    x = (model or {}).get("x")
    if result != "sat" or not isinstance(x, int) or not 3 < x < 10:
        raise BadAnswer(f"expected sat with 3 < x < 10, got {result} {model}")


class Design:
    """One way of running candidates.  ``key`` names its row in the JSON, ``label`` in the table."""

    key = ""
    label = ""

    def one(self) -> None:
        raise NotImplementedError

    def batch(self, k: int) -> None:
        for _ in range(k):
            self.one()

    def timed(self, k: int | None = None) -> tuple[float, float]:
        """(wall s, CPU s) of one candidate (``k`` None) or one batch of ``k``: the CPU of this
        process (all its threads) plus the design's other processes (``outside_cpu_s``)."""
        cpu = time.process_time() + self.outside_cpu_s()
        started = time.perf_counter()
        if k is None:
            self.one()
        else:
            self.batch(k)
        wall = time.perf_counter() - started
        host = time.process_time()  # before settling: its polling is the benchmark's own CPU
        self.settle()
        return wall, host + self.outside_cpu_s() - cpu

    def settle(self) -> None:
        """Wait until the design's processes have finished what this sample set off, so that their
        CPU is counted in it."""

    def close(self) -> None:
        """Release whatever the design holds (a zygote, a pool)."""

    def outside_cpu_s(self) -> float:
        """CPU seconds used so far by this design's processes other than the benchmark's own:
        CPU is what contention does not inflate much, unlike wall time on a shared 2-core box."""
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def extra(self) -> dict[str, Any]:
        """Design-specific facts for the JSON (cold start, isolation actually applied)."""
        return {}


class Engine(Design):
    """This package: a warm zygote forks each candidate.  Cold start = the first run()."""

    def __init__(self, isolation: str, verify: bool, jobs: int | None = None) -> None:
        self.isolation_level, self.verify, self.jobs = isolation, verify, jobs
        self.key = f"engine_{isolation}" + ("" if verify else "_noverify")
        self.label = (f"(a) engine, isolation={isolation!r}" if isolation == "kernel"
                      else f"(a') engine, isolation={isolation!r}")
        self.label += ", verify on" if verify else ", verify=False"
        self.sandbox = Sandbox(isolation=isolation)
        started = time.perf_counter()
        first = self.sandbox.run(SCRIPT, verify=verify)
        self.cold_start_s = time.perf_counter() - started
        self.applied = first.candidates[0].isolation
        self.child_wall_ms: list[float] = []
        self.child_cpu_ms: list[float] = []  # the candidate's own CPU (its init's wait4), no verifier
        self._check(first.candidates)

    def _check(self, candidates: list[CandidateResult]) -> None:
        for candidate in candidates:
            if candidate.verdict is not Verdict.SAT:
                raise BadAnswer(f"{self.key}: {candidate.verdict} {candidate.reason}")
            _check_answer("sat", candidate.model)
            if self.verify and candidate.verified is not True:
                raise BadAnswer(f"{self.key}: the model was not verified: {candidate}")

    def one(self) -> None:
        result = self.sandbox.run(SCRIPT, verify=self.verify)
        self._check(result.candidates)
        if result.candidates[0].wall_s is not None:
            self.child_wall_ms.append(result.candidates[0].wall_s * 1000)
        if result.candidates[0].cpu_s is not None:
            self.child_cpu_ms.append(result.candidates[0].cpu_s * 1000)

    def batch(self, k: int) -> None:
        self._check(self.sandbox.run([SCRIPT] * k, verify=self.verify, jobs=self.jobs).candidates)

    def close(self) -> None:
        self.sandbox.close()

    def settle(self) -> None:
        """What a candidate sets off after its verdict (the next standby and spare verifier forked
        and bootstrapped) is its cost too, and would otherwise fall between two samples."""
        _settle(self.sandbox.zygote_pid)

    def outside_cpu_s(self) -> float:
        """CPU of every process of the zygote's: the thin outer parent, the serving zygote, its fork
        server (zygote/forker.py: every tree and verifier is its child), and every live tree, each
        with the CPU of the children it reaped (``cutime``): a tree the fork server reaped is in the
        fork server's, a candidate its init reaped in the init's.  A process counted live at one
        reading and reaped by the next moves from its own line to its parent's ``cutime``: nothing
        is counted twice or lost, as long as every parent reaps (they all do)."""
        root = self.sandbox.zygote_pid
        return sum(_proc_cpu_s(pid) for pid in descendants(root)) if root is not None else 0.0
    def extra(self) -> dict[str, Any]:
        report = self.sandbox.isolation()
        applied: dict[str, Any] = dict(self.applied or {})
        inactive = [layer["name"] for layer in applied.get("layers", []) if not layer.get("active")]
        return {"cold_start_ms": self.cold_start_s * 1000, "isolation_probed": report,
                "isolation_applied": self.applied, "layers_not_applied": inactive,
                "child_wall_ms_samples": self.child_wall_ms}


def descendants(root: int) -> list[int]:
    """``root`` and every process below it, from /proc (every thread's ``children``)."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    todo.extend(int(child) for child in handle.read().split())
            except OSError:
                pass
    return found


def _settle(root: int | None, limit_s: float = 0.25) -> None:
    """Wait (at most ``limit_s``) until no process under ``root`` is running or runnable twice in
    a row, 1 ms apart: the zygote's refills after a verdict are done."""
    if root is None:
        return
    deadline, quiet = time.perf_counter() + limit_s, 0
    while quiet < 2 and time.perf_counter() < deadline:
        busy = False
        for pid in descendants(root):
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    state = handle.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            busy = busy or state in ("R", "D")
        quiet = 0 if busy else quiet + 1
        time.sleep(0.001)


def _proc_cpu_s(pid: int) -> float:
    """utime + stime + cutime + cstime of ``pid`` from /proc (cutime: its reaped descendants)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _run_file(path: str) -> None:
    done = subprocess.run([sys.executable, path], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BadAnswer(f"python {path} exited {done.returncode}: {done.stderr[-500:]}")
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    _check_answer(answer["result"], answer.get("model"))


class Subprocess(Design):
    """(b) The plain design: a temp file and a new ``python`` per script, answer on stdout."""

    key = "subprocess"
    label = "(b) new python per script (subprocess.run)"

    def __init__(self) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="z3bench-")
        self.pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1)
        self.count = 0

    def _candidate(self, index: int) -> None:
        path = os.path.join(self.folder.name, f"candidate-{index}.py")
        with open(path, "w") as handle:
            handle.write(PRELUDE + SCRIPT + EPILOGUE)
        try:
            _run_file(path)
        finally:
            os.unlink(path)

    def one(self) -> None:
        self.count += 1
        self._candidate(self.count)

    def batch(self, k: int) -> None:
        start = self.count
        self.count += k
        for future in [self.pool.submit(self._candidate, start + i) for i in range(k)]:
            future.result()

    def close(self) -> None:
        self.pool.shutdown()
        self.folder.cleanup()


class InProcess(Design):
    """(c) Floor: the same script exec'd in this process.  No isolation at all; z3's cost only."""

    key = "floor_inprocess"
    label = "(c) floor: z3 in-process (exec)"

    def __init__(self) -> None:
        self.code = compile(PRELUDE + SCRIPT + EPILOGUE.replace("print(", "_answer = ("), "<floor>", "exec")

    def one(self) -> None:
        namespace: dict[str, Any] = {}
        exec(self.code, namespace)
        answer = json.loads(namespace["_answer"])
        _check_answer(answer["result"], answer.get("model"))


class BareFork(Design):
    """(c) Floor: ``os.fork()`` + ``os._exit(0)`` + ``waitpid`` from this process (z3 imported)."""

    key = "floor_fork"
    label = "(c) floor: bare fork+exit+waitpid"

    def __init__(self) -> None:
        import z3  # noqa: F401  (the point: fork a process that has z3's pages mapped)

    def one(self) -> None:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            raise BadAnswer(f"bare fork child ended with status {status}")

    def batch(self, k: int) -> None:
        """All K forked at once, then reaped: the floor for K concurrent candidates."""
        pids = []
        for _ in range(k):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            pids.append(pid)
        for pid in pids:
            os.waitpid(pid, 0)


class Isolated(Design):
    """A floor measured in a process of its own (this file run as a script), which times itself.

    Why: a fork from the benchmark process write-protects the benchmark's pages, so its next z3
    check pays copy-on-write faults, and interleaved rows would slow each other down."""

    def __init__(self, floor: type[Design]) -> None:
        self.key, self.label = floor.key, floor.label
        self.process = subprocess.Popen([sys.executable, __file__, floor.key], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def timed(self, k: int | None = None) -> tuple[float, float]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("one\n" if k is None else f"batch {k}\n")
        self.process.stdin.flush()
        wall, cpu = self.process.stdout.readline().split()
        return float(wall), float(cpu)

    def one(self) -> None:
        self.timed()

    def batch(self, k: int) -> None:
        self.timed(k)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def _serve_floor(key: str) -> None:
    """The worker side of ``Isolated``: one line per request, "<wall s> <CPU s>" per answer."""
    design = {cls.key: cls for cls in (InProcess, BareFork)}[key]()
    for line in sys.stdin:
        words = line.split()
        wall, cpu = design.timed(int(words[1]) if words[0] == "batch" else None)
        print(f"{wall!r} {cpu!r}", flush=True)


if __name__ == "__main__":
    _serve_floor(sys.argv[1])
