"""Candidates on a real Dask cluster: a LocalCluster of worker processes and a scheduler over loopback.

Every worker runs the same zygote as a local run; these tests compare verdicts with local runs,
follow results as they stream, cancel candidates that are already running on a worker, SIGKILL
workers mid-run, and look in /proc for anything left behind.  Waits are on conditions (an update,
a future, a worker count), never on sleeps.
"""

from __future__ import annotations

import asyncio
import os
import queue
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import process_tree_of, require_extra
from tests.faults.processes import zygote_processes_of

distributed = require_extra("distributed", "dask")  # in CI a missing extra fails, never skips
import dask  # noqa: E402

from z3sandbox_kernel import CandidateResult, Limits, Sandbox, Verdict  # noqa: E402
from z3sandbox_kernel.host.distributed import KEY_PREFIX, resolve_client  # noqa: E402
from z3sandbox_kernel.host.worker import close_process_zygotes, process_zygote, zygote_pids  # noqa: E402

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

SAT = "x, y = Ints('x y')\ns.add(x > 2, y == x + 1)\nprint('model ahead')\n"
UNSAT = "x = Int('x')\ns.add(x > 3, x < 2)\n"
CANDIDATES = [
    SAT,
    UNSAT,
    "x = Int('x')\ns.add(x == 1 / 0)\n",  # runtime_error
    "x = Int('x'\n",  # syntax_error
    "print('no solver here')\n",  # no_check
    "b = BitVec('byte_0', 8)\ns.add(b == 0x41)\n",  # sat with a payload from the seed
    "import os\nos.system('id')\n",  # blocked, or a runtime error: whatever the local run says
    SAT,  # a twin: pure=False keeps it a task of its own
]
SPIN = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass\n"
FOREVER = "while True:\n    pass\n"
HARD = "a, b, c = Ints('a b c')\ns.add(a > 0, b > 0, c > 0, a*a*a + b*b*b == c*c*c)\n"
LONG = Limits(wall_s=60, cpu_s=60)  # without the transition hook, a worker would stay busy 60 s
FREED_WITHIN_S = 20.0
MEASURED = ("wall_s", "cpu_s", "peak_rss_mb", "host")
# Dask's default (1.1) lets a one-thread worker take a second task, which then waits behind the first:
# two long candidates could land on one worker.  1.0: each worker takes one, the other waits queued.
ONE_TASK_PER_THREAD = {"distributed.scheduler.worker-saturation": 1.0}
SCRATCH_PATH = re.compile(r"/\S+/candidate\.py")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Client]:
    # One retry after a worker death, so that a second death ends in KilledWorker.
    with dask.config.set({"distributed.scheduler.allowed-failures": 1, **ONE_TASK_PER_THREAD}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=":0")
    yield cluster
    cluster.close()


@pytest.fixture
def client(cluster: LocalCluster) -> Iterator[Client]:
    with distributed.Client(cluster) as client:
        client.wait_for_workers(2, timeout=60)  # after a test that killed one
        yield client


@pytest.fixture
def sandbox(kernel_sandbox: Sandbox) -> Sandbox:
    """Local runs at the level workers use by default (kernel), to compare verdicts with."""
    return kernel_sandbox


def _comparable(candidate: CandidateResult) -> dict[str, Any]:
    """A candidate's record without what differs from run to run: measurements, the host, and the
    scratch folder's random name in a traceback."""
    data = candidate.to_dict()
    for name in MEASURED:
        data.pop(name)
    data["stderr"] = SCRATCH_PATH.sub("<scratch>/candidate.py", data["stderr"])
    return data


def _pinned_task_time(client: Client, worker: str) -> float:
    """Seconds until a trivial task runs on ``worker`` (one thread: it waits for a free thread)."""
    started = time.monotonic()
    client.submit(os.getpid, workers=[worker], allow_other_workers=False, pure=False).result(
        timeout=FREED_WITHIN_S)
    return time.monotonic() - started


def _run_in_thread(sandbox: Sandbox, scripts: list[str], **kwargs: object) -> tuple[
        threading.Thread, queue.Queue[CandidateResult], dict[str, Any]]:
    updates: queue.Queue[CandidateResult] = queue.Queue()
    box: dict[str, Any] = {}

    def target() -> None:
        box["result"] = sandbox.run(scripts, on_update=updates.put, **kwargs)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, updates, box


def _await_updates(updates: queue.Queue[CandidateResult], *wanted: tuple[int, str]) -> None:
    """Wait until every (index, state) in ``wanted`` has come, in any order: two workers announce
    their candidates microseconds apart, in either order."""
    missing, seen = set(wanted), []
    while missing:
        try:
            update = updates.get(timeout=60)
        except queue.Empty:
            raise AssertionError(f"not within 60 s: {sorted(missing)}; updates seen: {seen}") from None
        missing.discard((update.index, update.state))
        seen.append((update.index, update.state, update.verdict, update.reason))


def _worker_running_our_task(client: Client) -> str:
    (worker,) = [w for w, keys in client.processing().items()
                 if any(str(k).startswith(KEY_PREFIX) for k in keys)]
    return str(worker)


def _wait_gone(pids: set[int], timeout_s: float = 20.0) -> set[int]:
    """The pids among ``pids`` still alive (not zombies) after waiting up to ``timeout_s``."""
    _wait_until(lambda: not any(_alive(pid) for pid in pids), timeout_s)
    return {pid for pid in pids if _alive(pid)}


def _wait_until(condition: Callable[[], bool], timeout_s: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)  # polling /proc: the kernel gives no event to wait on
    return True


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


# ------------------------------------------------------------------------------------ verdicts

def test_verdicts_on_workers_match_local_verdicts(client: Client, sandbox: Sandbox) -> None:
    local = sandbox.run(CANDIDATES, seed=b"\x00\x01", jobs=2)
    remote = sandbox.run(CANDIDATES, seed=b"\x00\x01", jobs=2, client=client)
    workers = set(client.scheduler_info()["workers"])
    assert [c.verdict for c in remote] == [c.verdict for c in local]
    assert remote.verdict is local.verdict
    assert [_comparable(c) for c in remote] == [_comparable(c) for c in local]
    assert {c.host for c in remote} <= workers and all(c.host is None for c in local)
    assert remote[5].payload == b"A\x01"


def test_smt2_and_k_seeds_match_local_runs(client: Client, sandbox: Sandbox) -> None:
    smt2 = "(declare-const x Int)\n(assert (> x 5))\n(check-sat)\n"
    assert [_comparable(c) for c in sandbox.run(smt2, language="smt2", client=client)] == \
           [_comparable(c) for c in sandbox.run(smt2, language="smt2")]
    remote = sandbox.run(SAT, k=4, client=client, jobs=2)
    assert [c.verdict for c in remote] == [Verdict.SAT] * 4
    assert len({c.host for c in remote}) >= 1


def test_updates_stream_as_each_candidate_completes(client: Client, sandbox: Sandbox) -> None:
    slow = HARD  # runs into its 8 s solver timeout, long after four quick ones one by one
    seen: list[tuple[int, str]] = []
    result = sandbox.run([slow, SAT, UNSAT, SAT, UNSAT], jobs=2, client=client,
                         limits=Limits(timeout_s=8, wall_s=20),
                         on_update=lambda c: seen.append((c.index, c.state)))
    done = [index for index, state in seen if state == "done"]
    assert sorted(done) == [0, 1, 2, 3, 4]
    assert done.index(0) == 4  # the quick ones streamed in while the slow one still ran
    for index in range(5):  # each one ran on a worker before it was done
        assert seen.index((index, "running")) < seen.index((index, "done"))
    assert result[0].verdict in (Verdict.TIMEOUT, Verdict.UNKNOWN)
    assert [c.verdict for c in result][1:] == [Verdict.SAT, Verdict.UNSAT, Verdict.SAT, Verdict.UNSAT]


# --------------------------------------------------------------------------------- cancelling

def test_race_kills_a_candidate_running_on_a_worker(client: Client, sandbox: Sandbox) -> None:
    winner = SPIN.format(seconds=5) + SAT  # sat after the other one surely started
    result = sandbox.run([FOREVER, winner], race=True, jobs=2, limits=LONG, client=client)
    loser = result[0]
    assert result[1].verdict is Verdict.SAT
    assert loser.verdict is Verdict.CANCELLED and loser.kill == "race"
    assert loser.host in client.scheduler_info()["workers"]
    assert "while it ran on" in loser.reason
    # Pins the transition hook: the worker's only thread is free long before the 60 s wall limit.
    freed_s = _pinned_task_time(client, loser.host)
    print(f"race: worker free {freed_s * 1000:.0f} ms after the run returned")
    assert freed_s < FREED_WITHIN_S


def test_sandbox_cancel_kills_a_candidate_running_on_a_worker(client: Client, sandbox: Sandbox) -> None:
    thread, updates, box = _run_in_thread(sandbox, [FOREVER], limits=LONG, client=client)
    _await_updates(updates, (0, "running"))  # a worker announced it started
    cancelled_at = time.monotonic()
    sandbox.cancel()
    thread.join(timeout=30)
    assert not thread.is_alive()
    (candidate,) = box["result"].candidates
    assert candidate.verdict is Verdict.CANCELLED and candidate.kill == "cancel"
    freed_s = _pinned_task_time(client, candidate.host)
    print(f"cancel: worker free {(time.monotonic() - cancelled_at) * 1000:.0f} ms after cancel()")
    assert freed_s < FREED_WITHIN_S


# ------------------------------------------------------------------------------ worker deaths

def test_a_worker_killed_mid_run_is_retried_elsewhere(client: Client, sandbox: Sandbox) -> None:
    # It must outlast three round trips to the cluster before the kill.
    thread, updates, box = _run_in_thread(sandbox, [SPIN.format(seconds=5) + SAT], limits=LONG,
                                          client=client)
    _await_updates(updates, (0, "running"))
    victim = _worker_running_our_task(client)
    victim_pid = client.run(os.getpid, workers=[victim])[victim]
    victim_zygotes = set(client.run(zygote_pids, workers=[victim])[victim])
    os.kill(victim_pid, signal.SIGKILL)
    thread.join(timeout=60)
    (candidate,) = box["result"].candidates
    assert candidate.verdict is Verdict.SAT
    assert candidate.host != victim
    assert box["result"].notes == [f"the Dask worker {victim} died (left the cluster) while candidate 0 "
                                   "ran on it; candidate 0 ran again on another worker"]
    # The dead worker's zygote (and with it its candidate) followed it: parent-death signal.
    assert victim_zygotes and not _wait_gone(victim_zygotes | {victim_pid})


def test_a_candidate_that_kills_every_worker_ends_crashed(client: Client, sandbox: Sandbox) -> None:
    thread, updates, box = _run_in_thread(sandbox, [FOREVER], limits=LONG, client=client)
    victims = []
    for _ in range(2):  # allowed-failures is 1: the second death is KilledWorker
        _await_updates(updates, (0, "running"))
        victim = _worker_running_our_task(client)
        victims.append(victim)
        os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
    thread.join(timeout=60)
    assert not thread.is_alive()  # not a hung cell
    (candidate,) = box["result"].candidates
    assert candidate.verdict is Verdict.CRASHED
    assert "KilledWorker" in candidate.reason
    assert len(set(victims)) == 2
    assert box["result"].notes == [  # which worker died, and what became of its candidate
        f"the Dask worker {victims[0]} died (left the cluster) while candidate 0 ran on it; "
        "candidate 0 ran again on another worker",
        f"the Dask worker {victims[1]} died (left the cluster) while candidate 0 ran on it; "
        "candidate 0 did not: Dask gave up after its allowed failures"]


# -------------------------------------------------------------------------- other executors

def test_a_thread_pool_executor_gives_the_same_verdicts_and_kills_on_race(sandbox: Sandbox) -> None:
    with ThreadPoolExecutor(2) as pool:
        remote = sandbox.run(CANDIDATES[:3], executor=pool, jobs=2)
        raced = sandbox.run([FOREVER, SPIN.format(seconds=0.5) + SAT], race=True, jobs=2,
                            limits=LONG, executor=pool)
    local = sandbox.run(CANDIDATES[:3], jobs=2)
    assert [_comparable(c) for c in remote] == [_comparable(c) for c in local]
    assert raced[0].verdict is Verdict.CANCELLED and raced[0].kill == "race"
    assert raced[0].wall_s < LONG.wall_s  # killed by this process's zygote, not its wall limit
    zygote = process_zygote("kernel").pid  # this process's zygote for executor tasks
    assert zygote is not None and _alive(zygote)
    ours = {zygote} | {proc.pid for proc in process_tree_of(zygote)}
    close_process_zygotes()
    assert not _wait_gone(ours)


def test_dask_executor_runs_on_workers_and_cancels_running_candidates(client: Client,
                                                                      sandbox: Sandbox) -> None:
    executor = client.get_executor()
    result = sandbox.run([SAT, UNSAT], executor=executor, jobs=2)
    assert [c.verdict for c in result] == [Verdict.SAT, Verdict.UNSAT]
    assert {c.host for c in result} <= set(client.scheduler_info()["workers"])
    raced = sandbox.run([FOREVER, SPIN.format(seconds=1.5) + SAT], race=True, jobs=2, limits=LONG,
                        executor=executor)
    assert raced[0].verdict is Verdict.CANCELLED
    for worker in client.scheduler_info()["workers"]:  # both threads free again
        assert _pinned_task_time(client, worker) < FREED_WITHIN_S


def test_an_asynchronous_client_works_from_its_own_loop(cluster: LocalCluster, sandbox: Sandbox) -> None:
    async def main() -> tuple[Any, Any]:
        async with distributed.Client(cluster.scheduler_address, asynchronous=True) as client:
            private = resolve_client(client)
            result = await sandbox.run_async([SAT, UNSAT], client=client, jobs=2)
            return private, private is not client and not private.asynchronous, result

    private, is_private_sync, result = asyncio.run(main())
    private.close()
    assert is_private_sync
    assert [c.verdict for c in result] == [Verdict.SAT, Verdict.UNSAT]


def test_a_scheduler_address_is_resolved_to_a_client(cluster: LocalCluster) -> None:
    client = resolve_client(cluster.scheduler_address)
    assert client.scheduler.address == cluster.scheduler_address
    assert resolve_client(cluster.scheduler_address) is client
    with pytest.raises(TypeError, match="scheduler address"):
        resolve_client(42)
    client.close()
    assert resolve_client(cluster.scheduler_address) is not client  # a closed one is replaced
    resolve_client(cluster.scheduler_address).close()


def test_without_distributed_client_says_how_to_install() -> None:
    script = textwrap.dedent("""
        import sys
        sys.modules["distributed"] = None  # as if the [dask] extra were not installed
        import z3sandbox_kernel
        try:
            z3sandbox_kernel.run("x = Int('x')", client="tcp://127.0.0.1:8786")
        except ImportError as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "pip install distributed (the [dask] extra)" in out.stdout, out.stderr


# ------------------------------------------------------------------------------- leftovers

def test_nothing_is_left_after_the_client_and_cluster_close(sandbox: Sandbox) -> None:
    with dask.config.set(ONE_TASK_PER_THREAD):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=":0")
    client = distributed.Client(cluster)
    client.wait_for_workers(2, timeout=60)  # one candidate per worker, so that each holds one
    thread, updates, box = _run_in_thread(sandbox, [FOREVER, FOREVER], jobs=2, limits=LONG,
                                          client=client)
    _await_updates(updates, (0, "running"), (1, "running"))
    workers = set(client.run(os.getpid).values())
    zygotes = zygote_processes_of(workers)
    # Each zygote has a candidate's child under it (the zygote says "started" just before it forks).
    outer = [pid for pids in client.run(zygote_pids).values() for pid in pids]
    assert len(outer) == 2
    assert _wait_until(lambda: all(len(process_tree_of(pid)) >= 2 for pid in outer))
    client.close()
    cluster.close()
    thread.join(timeout=30)
    assert not thread.is_alive()  # the run ended with the client, not at the wall limit
    assert {c.verdict for c in box["result"]} <= {Verdict.CANCELLED, Verdict.CRASHED,
                                                  Verdict.INTERNAL_ERROR}
    assert not _wait_gone(workers | zygotes)
    assert not zygote_processes_of(workers)
