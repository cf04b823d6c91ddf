"""What a media call plays to the phone for the far end while no real audio stands for it: a tone.

The simulated party the phone talks to sounds as a steady sine of `tone_hz(party)`: 700 Hz plus
40 Hz per the last digit of its number (or user id), so 700 to 1060 Hz, one fixed frequency per
party (`+447700900555` is 900 Hz), at a quarter of full scale. Frames of 20 ms at 48 kHz, paced by
real time as a microphone delivers them (the encoder of the negotiated codec resamples them).
"""

from __future__ import annotations

import asyncio
import fractions
import time

import av
import numpy as np
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

from ..domain.calls.call import Party

RATE = 48000
FRAME_SECONDS = 0.02
SAMPLES = int(RATE * FRAME_SECONDS)
AMPLITUDE = 0.25 * 32767


def tone_hz(party: Party) -> int:
    """The frequency the party sounds at: 700 Hz + 40 Hz × the last digit of its number or user id."""
    digits = [c for c in (party.number or str(party.user_id or "")) if c.isdigit()]
    return 700 + 40 * int(digits[-1]) if digits else 700


class Tone(MediaStreamTrack):
    """An audio track of a sine at `hz`, one 20 ms frame at a time, in real time."""

    kind = "audio"

    def __init__(self, hz: int) -> None:
        super().__init__()
        self.hz = hz
        second = np.arange(RATE) * (2 * np.pi * hz / RATE)
        self._second = (AMPLITUDE * np.sin(second)).astype("<i2").tobytes()
        """One second of the sine: a whole number of periods, so frames are slices of it."""
        self._sent = 0
        self._started: float | None = None

    async def recv(self) -> av.AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        if self._started is None:
            self._started = time.monotonic()
        else:
            await asyncio.sleep(max(0.0, self._started + self._sent / RATE - time.monotonic()))
        at = 2 * (self._sent % RATE)
        frame = av.AudioFrame(format="s16", layout="mono", samples=SAMPLES)
        frame.planes[0].update(self._second[at : at + 2 * SAMPLES])
        frame.sample_rate, frame.pts, frame.time_base = RATE, self._sent, fractions.Fraction(1, RATE)
        self._sent += SAMPLES
        return frame
