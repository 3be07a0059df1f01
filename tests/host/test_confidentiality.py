"""A candidate cannot reach what the zygote held of another candidate: its script, its output,
its result.  Every child is a fork of the zygote, so each starts by dropping the zygote's
references to every other candidate (server.py ``_forget``), and no fork happens with another
candidate's data on the stack.  The search covers what Python code reaches without raw memory
reads: the frames above user code and every object the garbage collector tracks (SECURITY.md says
what freed memory still holds).
"""

from __future__ import annotations

import secrets

import pytest

from z3sandbox_kernel import Verdict

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("zygote_is_clean")]

# The secret is joined at run time (a join is not folded into a constant, as "a" + "b" is), so
# the searching script's own text and code never hold it.
SEARCH = """
import gc, sys

def values(obj):
    if isinstance(obj, dict):
        return [*obj.keys(), *obj.values()]
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj)
    return list(getattr(obj, "__dict__", {{}}).values())

def search():  # the secret lives in this function's fast locals only, which no object holds
    secret = "-".join(["{head}", "{tail}"])
    needle = secret.encode()

    def holds(value):
        if isinstance(value, str):
            return secret in value
        if isinstance(value, (bytes, bytearray)):
            return needle in value
        return False

    hits = 0
    for obj in gc.get_objects():
        try:
            hits += any(holds(value) for value in values(obj))
        except Exception:
            pass
    frame = sys._getframe().f_back.f_back  # above the script's own frames
    while frame is not None:
        hits += any(holds(value) for value in dict(frame.f_locals).values())
        frame = frame.f_back
    return hits

print("hits", search())
"""


def _secret() -> tuple[str, str]:
    return "SECRET", secrets.token_hex(8)


def _hits(candidate) -> int:
    assert candidate.verdict is Verdict.NO_CHECK, (candidate.verdict, candidate.reason, candidate.stderr)
    return int(candidate.stdout.split()[-1])


def test_a_candidate_cannot_reach_an_earlier_runs_script_or_result(sandbox):
    head, tail = _secret()
    secret = f"{head}-{tail}"
    earlier = sandbox.run([f"print({secret!r})", f"# {secret}\nprint('x')"], verify=False)
    assert secret in earlier[0].stdout
    for _ in range(2):  # a cold fork, then a standby refilled after the earlier run's verdicts
        assert _hits(sandbox.run(SEARCH.format(head=head, tail=tail), verify=False)[0]) == 0


def test_a_candidate_cannot_reach_a_siblings_request(sandbox):
    head, tail = _secret()
    secret = f"{head}-{tail}"
    sibling = f"# {secret}\nimport time\ntime.sleep(0.5)\nprint({secret!r})"
    result = sandbox.run([sibling, SEARCH.format(head=head, tail=tail), sibling], jobs=3, verify=False)
    assert secret in result[0].stdout
    assert _hits(result[1]) == 0
