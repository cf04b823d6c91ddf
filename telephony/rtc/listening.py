"""What the phone sends on a media call, heard: frames counted, the last seconds kept, the tone measured.

The phone's track is decoded by aiortc (PCMU/PCMA at 8 kHz, Opus at 48 kHz); each frame is turned to
8 kHz mono 16-bit and the last `KEPT_SECONDS` are kept in memory (what a later recording step
writes out). `dominant_hz` is the strongest frequency of the last second (Hann-windowed FFT, 1 Hz
bins), or None before a second was heard.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import av
import numpy as np
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

RATE = 8000
KEPT_SECONDS = 30


class Heard:
    """Listens to one remote track until it ends (or `stop`)."""

    def __init__(self) -> None:
        self.frames = 0
        self.first_at: float | None = None
        """When the first frame was heard (monotonic seconds)."""
        self._ring = np.zeros(KEPT_SECONDS * RATE, dtype=np.int16)
        self._written = 0
        """Samples heard in all; the last of them are in `_ring`, at `_written % len(_ring)`."""
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
        return self._written / RATE

    def pcm(self) -> bytes:
        """The last seconds heard (up to `KEPT_SECONDS`), 8 kHz mono signed 16-bit little-endian."""
        return self._last(min(self._written, len(self._ring))).astype("<i2").tobytes()

    def dominant_hz(self) -> float | None:
        if self._written < RATE:
            return None
        spectrum = np.abs(np.fft.rfft(self._last(RATE).astype(np.float64) * np.hanning(RATE)))
        spectrum[0] = 0.0
        return float(np.argmax(spectrum))  # a second's FFT: bin k is k Hz

    def _last(self, count: int) -> np.ndarray:
        end = self._written % len(self._ring)
        return np.roll(self._ring, -end)[len(self._ring) - count :]

    async def _listen(self, track: MediaStreamTrack) -> None:
        with contextlib.suppress(MediaStreamError):
            while True:
                frame = await track.recv()
                if self.first_at is None:
                    self.first_at = time.monotonic()
                self.frames += 1
                assert isinstance(frame, av.AudioFrame)  # noqa: S101 - an audio track's
                for mono in self._resampler.resample(frame):
                    self._keep(mono.to_ndarray().reshape(-1))

    def _keep(self, samples: np.ndarray) -> None:
        size = len(self._ring)
        samples = samples[-size:]
        at = self._written % size
        first = min(len(samples), size - at)
        self._ring[at : at + first] = samples[:first]
        self._ring[: len(samples) - first] = samples[first:]
        self._written += len(samples)
