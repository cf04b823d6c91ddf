"""The server's output, written by a thread of its own: a stream that does not take it never stops the
event loop.

Under a supervisor, standard output and error are pipes, or a terminal that scrolls: when the reader
falls behind (a full pipe buffer, a stalled terminal), a write waits until it catches up. Written on the
event loop, one such write held every request, health's too, and a SIGTERM's handler behind it. Here
the loop only hands each line to a bounded queue (`put`), and the writer thread writes them in order;
when the queue is full, lines are dropped and counted, and the count is said once the stream takes
lines again. `close` gives the writer a moment to finish, never waiting on a stream that does not move.

Log records reach it through `QueuedHandler` (formatted in the thread that logs them); the lines the
server says (its URLs, the demo's logins) through `say`, a logger of their own written as they are.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import queue
import sys
import threading
from typing import TextIO

ROOM = 10_000
"""Lines the queue holds before it drops: a few seconds of access lines under load."""
SAID = "telephony.said"
"""The logger of the lines the server says to its standard output, as they are."""


class Output:
    """Lines to streams, in order, by a thread of its own."""

    def __init__(self, room: int = ROOM) -> None:
        self._lines: queue.Queue[tuple[TextIO, str] | None] = queue.Queue(room)
        self.dropped = 0
        self._writer = threading.Thread(target=self._write, name="output", daemon=True)
        self._writer.start()

    def put(self, stream: TextIO, line: str) -> None:
        """Hand `line` to the writer; dropped (and counted) when the queue is full."""
        try:
            self._lines.put_nowait((stream, line))
        except queue.Full:
            self.dropped += 1

    def close(self, timeout: float = 2.0) -> None:
        """Let the writer write what is queued for at most `timeout` seconds, then stop it."""
        try:
            self._lines.put(None, timeout=timeout)
        except queue.Full:
            return
        self._writer.join(timeout)

    def _write(self) -> None:
        while (item := self._lines.get()) is not None:
            stream, line = item
            if self.dropped:
                dropped, self.dropped = self.dropped, 0
                line = f"({dropped} lines dropped: the output did not take them in time)\n{line}"
            with contextlib.suppress(OSError, ValueError):  # a stream closed under us: nothing more to say on it
                _write(stream, (line + "\n").encode(errors="replace"))


def _write(stream: TextIO, data: bytes) -> None:
    """Write `data` to the stream's file descriptor itself: a write that waits holds no lock of Python's
    buffered stream, which the interpreter must take at exit (a stream it cannot have, such as a test's
    captured one, is written as a text stream)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        stream.write(data.decode())
        stream.flush()
        return
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class QueuedHandler(logging.Handler):
    """A logging handler that formats each record where it is logged and hands the line to an `Output`:
    a line `say` made goes to standard output as it is, every other to standard error as formatted."""

    def __init__(self, output: Output) -> None:
        super().__init__()
        self.output = output

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if record.name == SAID:
                self.output.put(sys.stdout, record.getMessage())
            else:
                self.output.put(sys.stderr, self.format(record))
        except Exception:
            self.handleError(record)

    def close(self) -> None:
        self.output.close()
        super().close()


def say(line: str) -> None:
    """Say `line` on standard output, through the configured output (`logs.configure`)."""
    logging.getLogger(SAID).info(line)
