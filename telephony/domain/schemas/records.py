"""History module: call records, recordings, media session records, voicemessages and chats.

These are written by the platform as calls happen, not POSTed; only a recording's analysis can be
PATCHed (`MonitorCreate`). Media sessions, from the spec's calls section, sit here with their records.
"""

from typing import Annotated, Any

import msgspec

from ..types import Body, Code, FileSize, Resource, Seconds, ShortText, WireTime, coded


class Cdr(Resource):
    """The CDR model; `type`, `disposition` and `destination` are the strings the model gives (their
    allowed values are the `cdrs` dictionaries). Its trace and capture are drawn from `calldate`,
    `src`, `dst` and the durations, which are bounded so that every record renders."""

    id: int = 0
    duration: Seconds | None = None
    live_id: int | None = None
    parent_live_id: int | None = None
    user_id: int | None = None
    sip_endpoint_id: int | None = None
    server_id: int | None = None
    type: str | None = None
    calldate: WireTime | None = None
    clid: str | None = None
    src_id: str | None = None
    dst_id: str | None = None
    src: ShortText | None = None
    dst: ShortText | None = None
    src_name: str | None = None
    dst_name: str | None = None
    src_ua: str | None = None
    dst_ua: str | None = None
    src_codec: str | None = None
    dst_codec: str | None = None
    billsec: Seconds | None = None
    disposition: str | None = None
    destination: str | None = None
    context: str | None = None
    rate: float | None = None
    charge: float | None = None
    t_cause: str | None = None
    hangup_by: str | None = None
    """The side that hung up, `src` or `dst` (None: the platform ended the call); not in the spec."""
    info: str | None = None
    call_id: int | None = None


class Monitor(Resource):
    """A recording: the spec's fields plus what PATCH may set (`transcript_speakers`, `cx_score`,
    `metadata`), so a patch can be read back."""

    id: int = 0
    called: str | None = None
    caller: str | None = None
    context: str | None = None
    dst_id: str | None = None
    dst_name: str | None = None
    duration: Seconds | None = None
    live_id: int | None = None
    sentiment: int | None = None
    sip_endpoint_id: int | None = None
    size: FileSize | None = None
    src_id: str | None = None
    summary: str | None = None
    timestamp: str | None = None
    transcript: str | None = None
    type: str | None = None
    user_id: int | None = None
    transcript_speakers: str | None = None
    cx_score: int | None = None
    metadata: Any = None


class MonitorCreate(Body):
    """The PATCH body of a recording (there is no POST); named `Create` so the registry derives the patch."""

    transcript: str | None = None
    transcript_speakers: str | None = None
    summary: str | None = None
    sentiment: Annotated[Code, coded("sentiment")] | None = None
    cx_score: Annotated[int, msgspec.Meta(ge=0, le=100)] | None = None
    metadata: Any = None


class Msdr(Resource):
    id: int = 0
    call_id: ShortText | None = None
    created_at: str | None = None
    dst: ShortText | None = None
    dst_id: str | None = None
    dst_ua: str | None = None
    duration: Seconds | None = None
    media_session_id: int | None = None
    src: ShortText | None = None
    src_id: str | None = None
    src_ua: str | None = None
    t_cause: str | None = None
    type: str | None = None
    user_id: int | None = None


class MediaSession(Resource):
    id: int = 0
    call_id: str | None = None
    created_at: str | None = None
    dst_id: str | None = None
    dst_ua: str | None = None
    duration: Seconds | None = None
    src_id: str | None = None
    src_ua: str | None = None
    status: str | None = None
    type: str | None = None
    updated_at: str | None = None
    user: int | None = None


class Voicemessage(Resource):
    id: int = 0
    caller: str | None = None
    callerid: str | None = None
    dialled: str | None = None
    duration: Seconds | None = None
    extension_id: int | None = None
    folder: int | None = None
    is_new: bool | None = None
    live_id: int | None = None
    origtime: str | None = None
    parent_live_id: int | None = None
    transcript: str | None = None


class Chat(Resource):
    id: int = 0
    created_at: str | None = None
    customer_id: int | None = None
    duration: Seconds | None = None
    operator_id: int | None = None
    operator_ua: str | None = None
    state: int | None = None
    visitor_city: str | None = None
    visitor_country: str | None = None
    visitor_email: str | None = None
    visitor_geo: str | None = None
    visitor_id: str | None = None
    visitor_ip: str | None = None
    visitor_name: str | None = None
    visitor_referer: str | None = None
    visitor_ua: str | None = None
    website_id: int | None = None


class ChatMsg(Resource):
    """One chat message (the spec shows no shape): `direction` is `in` from the visitor, `out` from
    the operator `user_id`."""

    id: int = 0
    chat_id: int | None = None
    user_id: int | None = None
    direction: str | None = None
    message: str | None = None
    created_at: str | None = None
