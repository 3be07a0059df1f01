"""The message format between the process roles.  Everything that crosses a process boundary is here.

Roles::

    host (kernel, CLI) --stdin/stdout--> zygote --order--> fork server --fork--> init --fork--> child
                       <--- frames ----         <- fds --               (PID 1 of   (the candidate,
                                                                          its tree)   or a verifier)

Every descriptor, who writes it and who reads it, and what travels on it, in order.  A frame is
a 4-byte big-endian length, then that many bytes of UTF-8 JSON with ``v`` equal to
``PROTOCOL_VERSION``; each is decoded once, at the reader's gate (gates.py, or zygote/frames.py for
what a candidate wrote), into the type named here, and kept typed from there.

1. The zygote's stdin (host writes, zygote reads; ``HOST_REQUESTS``): ``RunRequest``,
   ``CancelRequest``, ``ShutdownRequest``, in any order.  EOF: the host is gone, every candidate
   is killed.  A cluster's ``Remote`` (host/distributed.py, host/executor_remote.py) takes the
   same requests, each dispatched on its ``type`` to a typed handler.
2. The zygote's stdout (zygote writes, host reads): ``Hello`` once (``HELLO``), then per candidate
   ``Started`` and ``Done``, and a ``Restarted`` when one of its processes died and was replaced
   (``ZYGOTE_EVENTS``).  ``Done.result`` is a finished ``ZygoteResult``:
   the zygote classifies, measures and validates, so the host never parses anything a candidate
   wrote.  A Dask worker's result comes back pickled instead, and is checked by
   ``zygote_result``.  The zygote's stderr is its log, for people.
3. The fork server's socket (zygote/forker.py; zygote writes an order, the fork server answers):
   an order (role, scratch folder, limits, required layers: no candidate data), then a reply with
   the new tree's pid and, by SCM_RIGHTS, the zygote's ends of its pipes (4 to 7 below); or, once
   per fork server, an order for its successor that carries, by SCM_RIGHTS, the successor's own
   socket and reaped pipe.  Its reaped pipe (fork server writes, zygote reads): ``forker.REAPED``
   records, one per tree it reaped (its successor's too); EOF is its death.
4. A candidate's stdout and stderr, descriptors 1 and 2 (child writes, zygote reads): the script's
   own output, bytes, kept up to ``Limits.output_kb``.  Its stdin is /dev/null.
5. ``RESULT_FD`` (3; child writes, zygote reads under ``report_budget``): a ``SetupFrame`` (the
   layers applied, written by the bootstrap *before* user code runs); a ``CheckFrame`` per check
   of the script as it ends and a ``CheckModelFrame`` per model it read (at most ``MAX_CHECKS``);
   then the harness's ``ChildReport`` after user code ends (a verifier's: one ``VerifyReport`` per
   answer it was handed, zygote/verifiers.py), and
   nothing after it.  Among them, at most ``MAX_STACK_FRAMES`` ``StackReport`` frames, the script's
   stack when a limit was about to end it (child/stack.py).  All of it is untrusted: the byte
   budget is checked as bytes arrive, the nesting depth before parsing, then msgspec decodes each
   frame, bounds included, before any field is used; a frame that fails makes that candidate
   ``internal_error`` and touches nothing else.  The report is only a candidate's word about its
   solver outcome; times, memory, signals and kills come from the OS.
6. ``GO_FD`` (4; zygote writes, child reads; only the zygote holds the write end): a candidate's
   one ``RunRequest`` frame (``CANDIDATE_REQUEST``), handed after the fork, to a standby or a cold
   tree alike: the very bytes the host sent, never encoded again; a verifier's ``SPARE_GO`` byte
   per answer of its run to check, each once its
   ``VerifyRequest`` is in ``SPARE_REQUEST_FILE`` in its scratch folder (``SPARE_REQUEST``), the
   next only after the verifier's result for the last.  EOF: no request will come.
7. init's status pipe (init writes, zygote reads): one ``INIT_STATUS`` record when the candidate
   has ended (its wait status, CPU, peak memory, what the scratch tmpfs held, the calls seccomp
   refused).  The zygote signals init: ``KILL_REQUEST``, ``STACK_REQUEST`` (passed on to the child,
   which answers on 5), ``STANDBY_TAKEN``.
8. ``SUPERVISOR_FD`` (5; a socket pair, child to its init): the seccomp filter's listener, passed
   once by SCM_RIGHTS (child/layers/seccomp_notify.py), closed before user code runs.

This package is imported on every side and imports nothing from Jupyter.
"""

# Four modules, one contract: importers name the contract (``from ..protocol import RunRequest``),
# not the file that holds it.
from .gates import *  # noqa: F403
from .messages import *  # noqa: F403
from .verification import *  # noqa: F403
from .wire import *  # noqa: F403
