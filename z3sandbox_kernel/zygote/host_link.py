"""What the zygote says to the host, on its stdout (protocol/__init__.py, descriptor 2): its hello,
then per candidate ``Started`` and ``Done``, and ``Restarted`` when one of its processes was
replaced.  A restart before the hello (the fork server dying as the zygote starts) is told right
after it: the host reads the hello first."""

from __future__ import annotations

import os
import sys

from ..protocol import PROTOCOL_VERSION, Done, Hello, Restarted, Started, ZygoteResult, encode_frame
from ..protocol.roles import Role


class HostLink:
    def __init__(self, control_out: int) -> None:
        self.control_out = control_out
        self.said_hello = False
        self.untold: list[Restarted] = []  # restarts before the hello
        self.gone = False  # the host closed its end: nothing more can be told

    def write(self, frame: bytes) -> None:
        """One whole frame (the host reads frames; a blocking pipe takes it all)."""
        data = memoryview(frame)
        while data:
            written = os.write(self.control_out, data)
            data = data[written:]

    def send(self, msg: Hello | Started | Restarted) -> None:
        self.write(encode_frame(msg))

    def hello(self, msg: Hello) -> None:
        self.send(msg)
        self.said_hello = True
        self._tell()

    def restarted(self, role: Role, how: str) -> None:
        """One of the zygote's processes died and another took its place: the host says so."""
        print(f"z3sandbox zygote: the {role} {how} and was replaced", file=sys.stderr)
        self.untold.append(Restarted(v=PROTOCOL_VERSION, type="restarted", role=str(role), how=how))
        if self.said_hello:
            self._tell()

    def _tell(self) -> None:
        untold, self.untold = self.untold, []
        try:
            for message in untold:
                self.send(message)
        except BrokenPipeError:  # the host is gone; nothing to tell
            self.gone = True


def done_frame(candidate_id: int, result: ZygoteResult) -> bytes:
    """A candidate's one ``Done``, encoded (so that a result that cannot be encoded fails here)."""
    return encode_frame(Done(v=PROTOCOL_VERSION, type="done", id=candidate_id, result=result))
