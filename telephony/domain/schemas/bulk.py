"""Items of bulk PATCH bodies: an id (or number) and the few fields the spec lets a bulk change set."""

from typing import Annotated, Any

import msgspec

from ..types import E164, Code, coded

_UNSET: Any = msgspec.UNSET


class ContactBulkItem(msgspec.Struct, kw_only=True):
    id: int
    group_name: str | None | msgspec.UnsetType = _UNSET
    labels: list[Any] | None | msgspec.UnsetType = _UNSET


class CdrBulkItem(msgspec.Struct, kw_only=True):
    id: int
    info: str | None | msgspec.UnsetType = _UNSET


class VoicemessageBulkItem(msgspec.Struct, kw_only=True):
    id: int
    folder: Annotated[Code, coded("voicemessage_folder")] | msgspec.UnsetType = _UNSET
    is_new: bool | msgspec.UnsetType = _UNSET


class CallTrackingDdiItem(msgspec.Struct, kw_only=True):
    """Assigns a number to a call tracking campaign (null to release it)."""

    e164: E164
    campaign_id: int | None = None
    id: str | msgspec.UnsetType = _UNSET
