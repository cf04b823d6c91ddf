"""Silent MPEG-1 Layer III audio of a given length, byte-exact and deterministic.

Each frame is 32 kbit/s, 32 kHz, mono: a 4-byte header, zeroed side information and main data,
which every decoder plays as silence. 1152 samples a frame, so 36 ms.
"""

from __future__ import annotations

import math

FRAME_HEADER = bytes((0xFF, 0xFB, 0x18, 0xC0))
FRAME_BYTES = 144 * 32_000 // 32_000
FRAME_SECONDS = 1152 / 32_000
_FRAME = FRAME_HEADER + bytes(FRAME_BYTES - len(FRAME_HEADER))


def frames_for(seconds: float) -> int:
    return max(1, math.ceil(max(seconds, 0) / FRAME_SECONDS))


def size_for(seconds: float) -> int:
    """The byte length of `silence(seconds)`, without building it."""
    return frames_for(seconds) * FRAME_BYTES


def silence(seconds: float) -> bytes:
    return _FRAME * frames_for(seconds)
