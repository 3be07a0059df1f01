"""The message format between the three process roles.  Everything that crosses a process boundary is here.

Roles::

    host (kernel, CLI)  --stdin/stdout pipes-->  zygote  --fork-->  child (one per candidate)
                        <---- framed messages ----         <---- frames on fd RESULT_FD ----

* host -> zygote: ``RunRequest``, ``CancelRequest``, ``ShutdownRequest``.
* zygote -> host: ``Hello`` once, then ``Started`` and ``Done`` per candidate.  ``Done.result`` is a
  finished ``CandidateDict``: the zygote classifies, measures and validates, so the host never parses
  anything a candidate wrote.
* child -> zygote, on ``RESULT_FD``: first a setup frame (the layers applied, written by the
  bootstrap *before* user code runs), then a ``CheckFrame`` per check of the script as it ends and a
  ``CheckModelFrame`` per model it read (at most ``MAX_CHECKS`` checks), then the harness's
  ``ChildReport`` after user code ends (a verifier sends a ``VerifyReport``): nothing after it.
  Among them, at most ``MAX_STACK_FRAMES`` ``StackReport``s, the script's stack when a limit was
  about to end it (child/stack.py).  All of it is untrusted: a byte budget checked as bytes arrive
  (``report_budget``), the nesting depth checked, then msgspec decodes each frame into the
  TypedDicts below, bounds included, before any field is used (``zygote/frames.py``); a frame that
  fails makes that candidate ``internal_error`` and touches nothing else.  The report is only a
  candidate's word about its solver outcome; times, memory, signals and kills come from the OS.

Every message is one frame: a 4-byte big-endian length, then that many bytes of UTF-8 JSON with a
``v`` field equal to ``PROTOCOL_VERSION``.  This module is imported on every side and imports nothing
from Jupyter.
"""

# Three modules, one contract: importers name the contract (``from ..protocol import RunRequest``),
# not the file that holds it.
from .gates import *  # noqa: F403
from .messages import *  # noqa: F403
from .verification import *  # noqa: F403
from .wire import *  # noqa: F403
