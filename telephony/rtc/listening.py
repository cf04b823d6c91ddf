"""What the phone sends on a media call, heard: frames counted, the last seconds kept.

The phone's track is decoded by aiortc (PCMU/PCMA at 8 kHz, Opus at 48 kHz); each frame is turned to
8 kHz mono 16-bit and the last `KEPT_SECONDS` are kept in memory (what a later recording step
writes out; `pcm`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import av
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

RATE = 8000
KEPT_SECONDS = 30


class Heard:
    """Listens to one remote track until it ends (or `stop`)."""

    def __init__(self) -> None:
        self.frames = 0
        self.first_at: float | None = None
        """When the first frame was heard (monotonic seconds)."""
        self._ring = bytearray(2 * RATE * KEPT_SECONDS)
        self._written = 0
        """Bytes heard in all; the last of them are in `_ring`, ending at `_written % len(_ring)`."""
        self._resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
        self._task: asyncio.Task[None] | None = None

    def listen(self, track: MediaStreamTrack) -> None:
        self._task = asyncio.get_running_loop().create_task(self._listen(track), name="media-listen")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    @property
    def seconds(self) -> float:
        """Seconds heard in all."""
        return self._written / (2 * RATE)

    def pcm(self) -> bytes:
        """The last seconds heard (up to `KEPT_SECONDS`), 8 kHz mono signed 16-bit little-endian."""
        size, end = len(self._ring), self._written % len(self._ring)
        if self._written < size:
            return bytes(self._ring[:end])
        return bytes(self._ring[end:] + self._ring[:end])

    async def _listen(self, track: MediaStreamTrack) -> None:
        with contextlib.suppress(MediaStreamError):
            while True:
                frame = await track.recv()
                if self.first_at is None:
                    self.first_at = time.monotonic()
                self.frames += 1
                assert isinstance(frame, av.AudioFrame)  # noqa: S101 - an audio track's
                for mono in self._resampler.resample(frame):
                    self._keep(bytes(mono.planes[0])[: 2 * mono.samples])

    def _keep(self, data: bytes) -> None:
        size = len(self._ring)
        data = data[-size:]
        at = self._written % size
        first = min(len(data), size - at)
        self._ring[at : at + first] = data[:first]
        self._ring[: len(data) - first] = data[first:]
        self._written += len(data)
