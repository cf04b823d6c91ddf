"""Silent MPEG-1 Layer III audio of a given length, byte-exact and deterministic, streamed.

Each frame is 32 kbit/s, 32 kHz, mono: a 4-byte header, zeroed side information and main data,
which every decoder plays as silence. 1152 samples a frame, so 36 ms. A recording is one frame
repeated (at least `MIN_FRAMES` times), so `stream` hands it out in chunks of frames as it is sent:
a day of audio (345.6 MB) costs one chunk of memory. A length beyond `MAX_CALL_SECONDS`, or one that is not a number, is
served as the longest or the shortest recording.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ..domain.types import MAX_CALL_SECONDS

FRAME_HEADER = bytes((0xFF, 0xFB, 0x18, 0xC0))
FRAME_BYTES = 144 * 32_000 // 32_000
FRAME_SECONDS = 1152 / 32_000
MIN_FRAMES = 2
"""The fewest frames a recording has: libmpg123 (so libsndfile) refuses a stream of one frame."""
CHUNK_FRAMES = 455
"""Frames a chunk of `stream` holds: 65,520 bytes."""
_FRAME = FRAME_HEADER + bytes(FRAME_BYTES - len(FRAME_HEADER))


def _bounded(seconds: object) -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or math.isnan(seconds):
        return 0.0
    return min(max(float(seconds), 0.0), MAX_CALL_SECONDS)


def frames_for(seconds: object) -> int:
    return max(MIN_FRAMES, math.ceil(_bounded(seconds) / FRAME_SECONDS))


def size_for(seconds: object) -> int:
    """The byte length of `stream(seconds)`, without building it."""
    return frames_for(seconds) * FRAME_BYTES


def stream(seconds: object) -> Iterator[bytes]:
    """The MP3 of `seconds` of silence, chunk by chunk (each at most `CHUNK_FRAMES` frames)."""
    remaining = frames_for(seconds)
    whole = _FRAME * CHUNK_FRAMES
    while remaining > 0:
        count = min(remaining, CHUNK_FRAMES)
        yield whole if count == CHUNK_FRAMES else _FRAME * count
        remaining -= count


def silence(seconds: object) -> bytes:
    """The whole MP3 at once: for short recordings only."""
    return b"".join(stream(seconds))
