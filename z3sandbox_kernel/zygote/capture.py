"""A candidate's stdout and stderr as the zygote keeps them: the head and the tail, the middle dropped.

A script that prints a lot (z3's ``verbose=1`` progress writes hundreds of KB to stderr) keeps
running, as it would under ``python script.py``; only the hard cap on all of its output
(``Limits.output_max_mb``, checked by the server) ends it.  Memory stays bounded: at most
``keep`` bytes of head and ``2 * keep`` of tail per stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Stream:
    name: str  # "stdout", "stderr", "result", "status"
    fd: int | None  # None once closed
    keep: int  # bytes kept at the head, and again at the tail
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    def take(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > 2 * self.keep:  # trimmed in batches: amortised O(1) a byte
                del self.tail[: len(self.tail) - self.keep]

    @property
    def dropped(self) -> int:
        return self.total - len(self.head) - min(len(self.tail), self.keep)

    @property
    def data(self) -> bytes:
        """Head and tail, without a marker (for short streams such as the status pipe)."""
        return bytes(self.head) + bytes(self.tail[-self.keep:] if self.keep else b"")

    def text(self) -> bytes:
        """What the user sees: head, a marker saying how much of the middle was dropped, tail."""
        if self.dropped <= 0:
            return self.data
        tail = bytes(self.tail[-self.keep:])
        marker = f"\n… [{self.dropped} bytes of {self.name} dropped: the first and last " \
                 f"{self.keep // 1024} KB are kept] …\n"
        return bytes(self.head) + marker.encode("utf-8") + tail
