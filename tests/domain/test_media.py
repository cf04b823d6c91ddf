"""Audio sniffing: the bytes decide, never the claimed type."""

import base64

import pytest

from telephony.domain.media import decode_audio, sniff_audio

MP3_HEADER = b"\xff\xfb\x90\x64"  # MPEG-1 Layer III, 128 kbit/s, 44.1 kHz: 417-byte frames
MP3_FRAME = MP3_HEADER + bytes(417 - 4)
ID3_TAG = b"ID3\x04\x00\x00\x00\x00\x00\x0a" + bytes(10)


def adts_frame(payload: int = 9) -> bytes:
    """An AAC-LC, 44.1 kHz stereo ADTS frame without CRC, with `payload` zero bytes."""
    length = 7 + payload
    header = bytes([0xFF, 0xF1, 0x50, 0x80 | (length >> 11), (length >> 3) & 0xFF, ((length & 7) << 5) | 0x1F, 0xFC])
    return header + bytes(payload)


WAV = (
    b"RIFF"
    + (36).to_bytes(4, "little")
    + b"WAVEfmt "
    + (16).to_bytes(4, "little")
    + bytes.fromhex("01000100")
    + (8000).to_bytes(4, "little")
    + (16000).to_bytes(4, "little")
    + bytes.fromhex("02001000")
    + b"data"
    + bytes(4)
)
MP4 = (24).to_bytes(4, "big") + b"ftypM4A " + bytes(4) + b"M4A isom"

SAMPLES = [
    ("wav", WAV, "wav"),
    ("m4a", MP4, "mp4"),
    ("one mp3 frame", MP3_FRAME, "mp3"),
    ("two mp3 frames", MP3_FRAME * 2, "mp3"),
    ("id3 then mp3 frame", ID3_TAG + MP3_FRAME, "mp3"),
    ("mp3 frame then id3v1 tag", MP3_FRAME + b"TAG" + bytes(125), "mp3"),
    ("one adts frame", adts_frame(), "aac"),
    ("two adts frames", adts_frame() * 2, "aac"),
    ("id3 then adts", ID3_TAG + adts_frame(), "aac"),
    ("empty", b"", None),
    ("text", b"hello, this is not audio", None),
    ("png", b"\x89PNG\r\n\x1a\n" + bytes(24), None),
    ("pdf", b"%PDF-1.7\n" + bytes(16), None),
    ("avi is riff but not wave", b"RIFF" + bytes(4) + b"AVI " + bytes(16), None),
    ("ftyp with a binary brand", (16).to_bytes(4, "big") + b"ftyp\x00\x01\x02\x03" + bytes(4), None),
    ("all ones", b"\xff" * 32, None),
    ("mp3 frame then junk", MP3_FRAME + b"junkjunk", None),
    ("a truncated mp3 frame", MP3_FRAME[:100], None),
    ("a truncated adts frame", adts_frame()[:10], None),
    ("mpeg layer ii frame", b"\xff\xfd\x90\x64" + bytes(413), None),
    ("reserved sample rate", b"\xff\xfb\x9c\x64" + bytes(413), None),
    ("id3 then junk", ID3_TAG + b"not a frame at all", None),
    ("adts with a reserved sample rate", bytes([0xFF, 0xF1, 0x7C, 0x80, 0x02, 0x1F, 0xFC]) + bytes(9), None),
]


@pytest.mark.parametrize(("data", "expected"), [sample[1:] for sample in SAMPLES], ids=[s[0] for s in SAMPLES])
def test_audio_is_recognised_by_its_bytes(data, expected):
    assert sniff_audio(data) == expected


@pytest.mark.parametrize("prefix", ["", "data:audio/wav;base64,"])
def test_base64_audio_decodes_to_its_bytes_and_format(prefix):
    assert decode_audio(prefix + base64.b64encode(WAV).decode()) == (WAV, "wav")


@pytest.mark.parametrize(
    ("text", "message"),
    [("not base64!", "not valid base64"), (base64.b64encode(b"\x89PNG\r\n\x1a\n").decode(), "MP3, MP4, WAV or AAC")],
)
def test_text_that_is_not_base64_audio_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        decode_audio(text)
