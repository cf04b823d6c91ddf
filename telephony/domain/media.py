"""Recognise uploaded audio by its bytes, never by the type a client claims.

The platform takes voicemail announcements as MP3, MP4, WAV or AAC. `sniff_audio` checks the
container or frame structure: `RIFF....WAVE`; an ISO-BMFF `ftyp` box at offset 4; an MPEG-1/2/2.5
Layer III frame header, optionally after an ID3v2 tag; an ADTS frame header (sync 0xFFF, layer 00).
The first frame must be whole, and when the data goes on, the next frame's header must follow it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from types import MappingProxyType

# The media type to serve each recognised format with.
MEDIA_TYPES = MappingProxyType({"mp3": "audio/mpeg", "mp4": "audio/mp4", "wav": "audio/wav", "aac": "audio/aac"})

# Layer III bitrates (kbit/s) by bitrate index, for MPEG-1 and for MPEG-2/2.5.
_MP3_BITRATES = {
    1: (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    2: (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
# Sample rates by version bits (0: MPEG-2.5, 2: MPEG-2, 3: MPEG-1) and sample-rate index.
_MP3_SAMPLE_RATES = {0: (11025, 12000, 8000), 2: (22050, 24000, 16000), 3: (44100, 48000, 32000)}
_ADTS_SAMPLE_RATE_INDEXES = 13
_ADTS_HEADER_LENGTH = 7


def _wav_format_chunk(data: bytes) -> bool:
    """A WAVE file's first chunk is a whole `fmt ` chunk naming channels and a sample rate."""
    if len(data) < 36 or data[12:16] != b"fmt ":
        return False
    size = int.from_bytes(data[16:20], "little")
    channels, rate = int.from_bytes(data[22:24], "little"), int.from_bytes(data[24:28], "little")
    return size >= 16 and len(data) >= 20 + size and channels > 0 and rate > 0


def sniff_audio(data: bytes) -> str | None:
    """The format the bytes are in: "mp3", "mp4", "wav" or "aac"; None when they are none of these."""
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "wav" if _wav_format_chunk(data) else None
    if len(data) >= 16 and data[4:8] == b"ftyp" and int.from_bytes(data[:4], "big") >= 16:
        return "mp4" if all(0x20 <= byte < 0x7F for byte in data[8:12]) else None
    frames = data[_id3_length(data) :]
    if _frames_chain(frames, _mp3_frame_length, 4):
        return "mp3"
    if _frames_chain(frames, _adts_frame_length, _ADTS_HEADER_LENGTH):
        return "aac"
    return None


def decode_audio(text: str) -> tuple[bytes, str]:
    """Base64 text (optionally a `data:` URL) to (bytes, format); ValueError when it is not audio."""
    if text.startswith("data:") and "," in text:
        text = text.split(",", 1)[1]
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("The file is not valid base64.") from None
    audio_format = sniff_audio(data)
    if audio_format is None:
        raise ValueError("The file must be MP3, MP4, WAV or AAC audio.")
    return data, audio_format


def _id3_length(data: bytes) -> int:
    """Length of a leading ID3v2 tag (header, body and footer), or 0 when there is none."""
    if len(data) < 10 or data[:3] != b"ID3" or data[3] not in (2, 3, 4) or data[4] == 0xFF:
        return 0
    size_bytes = data[6:10]
    if any(byte & 0x80 for byte in size_bytes):
        return 0
    size = (size_bytes[0] << 21) | (size_bytes[1] << 14) | (size_bytes[2] << 7) | size_bytes[3]
    has_footer = bool(data[5] & 0x10)
    return 10 + size + (10 if has_footer else 0)


def _mp3_frame_length(header: bytes) -> int | None:
    """Byte length of the Layer III frame this 4-byte header starts, or None when it is not one."""
    if len(header) < 4 or header[0] != 0xFF or header[1] & 0xE0 != 0xE0:
        return None
    version, layer = (header[1] >> 3) & 0b11, (header[1] >> 1) & 0b11
    bitrate_index, rate_index = header[2] >> 4, (header[2] >> 2) & 0b11
    if version == 1 or layer != 0b01 or bitrate_index in (0, 15) or rate_index == 3 or header[3] & 0b11 == 2:
        return None
    bitrate = _MP3_BITRATES[1 if version == 3 else 2][bitrate_index] * 1000
    sample_rate = _MP3_SAMPLE_RATES[version][rate_index]
    padding = (header[2] >> 1) & 1
    return (144 if version == 3 else 72) * bitrate // sample_rate + padding


def _adts_frame_length(header: bytes) -> int | None:
    """Byte length of the ADTS frame this header starts, or None when it is not one."""
    if len(header) < _ADTS_HEADER_LENGTH or header[0] != 0xFF or header[1] & 0xF6 != 0xF0:
        return None
    if (header[2] >> 2) & 0x0F >= _ADTS_SAMPLE_RATE_INDEXES:
        return None
    length = ((header[3] & 0b11) << 11) | (header[4] << 3) | (header[5] >> 5)
    return length if length >= _ADTS_HEADER_LENGTH else None


def _frames_chain(data: bytes, frame_length: Callable[[bytes], int | None], header_length: int) -> bool:
    """A whole valid first frame, then a valid frame header (or an ID3v1 tag) if the data goes on."""
    first = frame_length(data[:header_length])
    if first is None or len(data) < first:
        return False
    following = data[first : first + header_length]
    return len(following) < header_length or following[:3] == b"TAG" or frame_length(following) is not None
