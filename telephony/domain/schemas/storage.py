"""Storage module: SMS, canned responses, faxes and voicemail announcements."""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, ClassVar

import msgspec

from ..media import decode_audio
from ..types import E164, Body, FileSize, Name, PositiveId, Resource, ShortText

SmsText = Annotated[str, msgspec.Meta(min_length=1, max_length=1600)]


class Sms(Resource):
    """An SMS sent or received: the spec's fields, and how it was counted, charged and delivered."""

    id: int = 0
    """The SMS's id."""
    created_at: str | None = None
    """When it was sent or received (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    from_: str | None = msgspec.field(default=None, name="from")
    """The number it came from."""
    from_id: str | None = None
    """Who sent it: the sending user's id, or `contact:<id>` of the contact with the number it came from."""
    from_name: str | None = None
    """The sender's name."""
    message: str | None = None
    """The text."""
    result: str | None = None
    """`QUEUED`, `SENT`, `DELIVERED` or `FAILED` (sent), `RECEIVED` (received)."""
    to: str | None = None
    """The number it went to."""
    to_id: str | None = None
    """Whom it reached: the id of the user of the receiving number."""
    to_name: str | None = None
    """The receiver's name."""
    type: str | None = None
    """`out` sent, `in` received."""
    user_id: int | None = None
    """The user it belongs to: its sender, or the user of the number that received it."""
    encoding: str | None = None
    """How the text goes: `GSM-7` or `UCS-2` (an addition, as the fields below)."""
    length: int | None = None
    """The text's length: septets (GSM-7) or UTF-16 units (UCS-2)."""
    parts: int | None = None
    """How many parts it goes in (each charged)."""
    rate: float | None = None
    """The price of a part."""
    charge: float | None = None
    """What it cost."""
    sent_at: str | None = None
    """When it left (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    delivered_at: str | None = None
    """When it was delivered (or received) (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    failure_reason: str | None = None
    """Why it failed."""


class SmsCreate(Body):
    to: E164
    message: SmsText
    from_: E164 | None = msgspec.field(default=None, name="from")


class SmsCannedResponse(Sms):
    """The spec answers canned responses in the SMS shape; `name` and `text` carry what was saved."""

    name: str | None = None
    """The canned response's name."""
    text: str | None = None
    """The text it sends."""


class SmsCannedResponseCreate(Body):
    name: Name
    text: SmsText


class Fax(Resource):
    id: int = 0
    """The fax's id."""
    charge: float | None = None
    """What it cost."""
    created_at: str | None = None
    """When it was sent or received (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    filename: str | None = None
    """The name of its PDF."""
    from_: ShortText | None = msgspec.field(default=None, name="from")
    """The number it came from."""
    pages: int | None = None
    """How many pages it has."""
    status: int | None = None
    """1 queued, 2 sending, 3 sent, 4 received, 5 failed (the `fax_status` dictionary)."""
    to: ShortText | None = None
    """The number it went to."""
    type: int | None = None
    """1 inbound, 2 outbound (the `fax_type` dictionary)."""


class VmAnnouncement(Resource):
    """The spec's fields, and what was uploaded: its checked `format`, byte `size` and `sha256`."""

    id: int = 0
    """The announcement's id."""
    created_at: str | None = None
    """When it was uploaded (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    description: str | None = None
    """What it says."""
    extension: int | None = None
    """The user whose voicemail plays it."""
    format: str | None = None
    """The audio's format, as checked on upload (`mp3`, `mp4`, `wav`, `aac`)."""
    size: FileSize | None = None
    """Bytes of the audio file."""
    sha256: str | None = None
    """The SHA-256 of the audio file, by which it is stored."""


class VmAnnouncementCreate(Body):
    """`data` is the base64 audio file; `validate_vm_announcement` checks that it really is audio."""

    stored_as: ClassVar[Mapping[str, str]] = MappingProxyType({"extension_id": "extension"})

    extension_id: PositiveId
    description: Annotated[str, msgspec.Meta(max_length=255)]
    data: Annotated[str, msgspec.Meta(min_length=1)]


def validate_vm_announcement(body: msgspec.Struct) -> list[tuple[str | None, str]]:
    """`data` must decode from base64 to MP3, MP4, WAV or AAC bytes (create and patch bodies)."""
    data = getattr(body, "data", None)
    if not isinstance(data, str):
        return []
    try:
        decode_audio(data)
    except ValueError as exc:
        return [("data", str(exc))]
    return []
