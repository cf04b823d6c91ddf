"""Storage module: SMS, canned responses, faxes and voicemail announcements."""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, ClassVar

import msgspec

from ..media import decode_audio
from ..types import E164, Body, FileSize, Name, PositiveId, Resource, ShortText

SmsText = Annotated[str, msgspec.Meta(min_length=1, max_length=1600)]


class Sms(Resource):
    id: int = 0
    created_at: str | None = None
    from_: str | None = msgspec.field(default=None, name="from")
    from_id: str | None = None
    from_name: str | None = None
    message: str | None = None
    result: str | None = None
    to: str | None = None
    to_id: str | None = None
    to_name: str | None = None
    type: str | None = None
    user_id: int | None = None
    encoding: str | None = None
    """Additions: how the text goes (GSM-7 or UCS-2), its length in septets or UTF-16 units, its parts,"""
    length: int | None = None
    parts: int | None = None
    rate: float | None = None
    """the price of a part and the whole charge,"""
    charge: float | None = None
    sent_at: str | None = None
    """and when it was sent and delivered, or why it failed."""
    delivered_at: str | None = None
    failure_reason: str | None = None


class SmsCreate(Body):
    to: E164
    message: SmsText
    from_: E164 | None = msgspec.field(default=None, name="from")


class SmsCannedResponse(Sms):
    """The spec answers canned responses in the SMS shape; `name` and `text` carry what was saved."""

    name: str | None = None
    text: str | None = None


class SmsCannedResponseCreate(Body):
    name: Name
    text: SmsText


class Fax(Resource):
    id: int = 0
    charge: float | None = None
    created_at: str | None = None
    filename: str | None = None
    from_: ShortText | None = msgspec.field(default=None, name="from")
    pages: int | None = None
    status: int | None = None
    to: ShortText | None = None
    type: int | None = None


class VmAnnouncement(Resource):
    """The spec's fields, and what was uploaded: its checked `format`, byte `size` and `sha256`."""

    id: int = 0
    created_at: str | None = None
    description: str | None = None
    extension: int | None = None
    format: str | None = None
    size: FileSize | None = None
    sha256: str | None = None


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
