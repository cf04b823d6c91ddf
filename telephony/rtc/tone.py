"""What a media call plays to the phone for the far end while no real audio stands for it: a tone.

The simulated party the phone talks to sounds as a steady sine of `tone_hz(party)`: 700 Hz plus
40 Hz per the last digit of its number (or user id), so 700 to 1060 Hz, one fixed frequency per
party (`+447700900555` is 900 Hz), at a quarter of full scale (-12 dBFS). Frames of 20 ms at
48 kHz, paced by real time as a microphone delivers them (the encoder of the negotiated codec
resamples them); each is a slice of one whole number of the sine's periods, computed once.
"""

from __future__ import annotations

import asyncio
import fractions
import math
import time
from array import array

import av
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from ..domain.calls.call import Party

RATE = 48000
SAMPLES = RATE // 50
"""Samples in a frame of 20 ms."""
AMPLITUDE = 0.25 * 32767


def tone_hz(party: Party) -> int:
    """The frequency the party sounds at: 700 Hz + 40 Hz × the last digit of its number or user id."""
    digits = [c for c in (party.number or str(party.user_id or "")) if c.isdigit()]
    return 700 + 40 * int(digits[-1]) if digits else 700


def periods(hz: int) -> bytes:
    """The shortest run of 16-bit samples at `RATE` that holds whole periods of a sine of `hz`."""
    count = RATE // math.gcd(RATE, hz)
    step = 2 * math.pi * hz / RATE
    return array("h", (round(AMPLITUDE * math.sin(step * n)) for n in range(count))).tobytes()


class Tone(MediaStreamTrack):
    """An audio track of a sine at `hz`, one 20 ms frame at a time, in real time."""

    kind = "audio"

    def __init__(self, hz: int) -> None:
        super().__init__()
        self.hz = hz
        cycle = periods(hz)
        self._samples = cycle * (2 + 2 * SAMPLES // len(cycle))
        """Whole periods, at least a frame more than one run: a frame is a slice of it."""
        self._cycle = len(cycle) // 2
        self._sent = 0
        self._started: float | None = None

    async def recv(self) -> av.AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        if self._started is None:
            self._started = time.monotonic()
        else:
            await asyncio.sleep(max(0.0, self._started + self._sent / RATE - time.monotonic()))
        at = 2 * (self._sent % self._cycle)
        frame = av.AudioFrame(format="s16", layout="mono", samples=SAMPLES)
        frame.planes[0].update(self._samples[at : at + 2 * SAMPLES])
        frame.sample_rate, frame.pts, frame.time_base = RATE, self._sent, fractions.Fraction(1, RATE)
        self._sent += SAMPLES
        return frame
