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
    """The record's id."""
    duration: Seconds | None = None
    """Seconds from the call's start to its end."""
    live_id: int | None = None
    """The live call that made the record; its recordings (`monitors`) name it too."""
    parent_live_id: int | None = None
    """The live call this one went on from (a transfer, an IVR that sent its caller on)."""
    user_id: int | None = None
    """The user the call belongs to."""
    sip_endpoint_id: int | None = None
    """The SIP endpoint of the call."""
    server_id: int | None = None
    """The media server that carried the call."""
    type: str | None = None
    """`O` outbound, `I` inbound, `M` missed (the `cdr_type` dictionary)."""
    calldate: WireTime | None = None
    """When the call started (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    clid: str | None = None
    """The caller ID, with its number (`"Name" <number>`)."""
    src_id: str | None = None
    """Who called: a user's id, `contact:<id>`, an IVR's or a queue's identifier."""
    dst_id: str | None = None
    """Whom the call reached, as `src_id` names it."""
    src: ShortText | None = None
    """The calling number."""
    dst: ShortText | None = None
    """The number called."""
    src_name: str | None = None
    """The caller's display name."""
    dst_name: str | None = None
    """The display name of the party called."""
    src_ua: str | None = None
    """The caller's user agent."""
    dst_ua: str | None = None
    """The user agent of the party called."""
    src_codec: str | None = None
    """The caller's audio codec."""
    dst_codec: str | None = None
    """The audio codec of the party called."""
    billsec: Seconds | None = None
    """Seconds the call was connected: what is billed."""
    disposition: str | None = None
    """How the call ended: `CONNECTED`, `NO_ANSWER`, `BUSY`, ... (the `disposition` dictionary)."""
    destination: str | None = None
    """`in`, `out`, `webcall` or `callmeback` (the `destination` dictionary)."""
    context: str | None = None
    """Where the call was handled: `PSTN_CALL`, `USER_LOCAL`, `IVR`, `QUEUE`, ... (the `context` dictionary)."""
    rate: float | None = None
    """The per-minute rate the call was charged at."""
    charge: float | None = None
    """What the call cost."""
    t_cause: str | None = None
    """Why the call ended (`normal clearing`, `user busy`, ...)."""
    hangup_by: str | None = None
    """The side that hung up, `src` or `dst` (None: the platform ended the call); not in the spec."""
    info: str | None = None
    """Extra information, which a bulk PATCH may set."""
    call_id: int | None = None
    """Deprecated (the spec's); None."""


class Monitor(Resource):
    """A recording: the spec's fields plus what PATCH may set (`transcript_speakers`, `cx_score`,
    `metadata`), so a patch can be read back."""

    id: int = 0
    """The recording's id."""
    called: str | None = None
    """The number called."""
    caller: str | None = None
    """The calling number."""
    context: str | None = None
    """Where the call was handled (the `context` dictionary)."""
    dst_id: str | None = None
    """Whom the call reached (a user's id, ...)."""
    dst_name: str | None = None
    """The display name of the party called."""
    duration: Seconds | None = None
    """Seconds recorded."""
    live_id: int | None = None
    """The live call recorded."""
    sentiment: int | None = None
    """The call's sentiment: -1 negative, 0 neutral, 1 positive."""
    sip_endpoint_id: int | None = None
    """The SIP endpoint of the call."""
    size: FileSize | None = None
    """Bytes of the recording's MP3."""
    src_id: str | None = None
    """Who called (a user's id, `contact:<id>`, ...)."""
    summary: str | None = None
    """A summary of the call."""
    timestamp: str | None = None
    """When the recording started (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    transcript: str | None = None
    """The call's transcript."""
    type: str | None = None
    """`O` outbound, `I` inbound, `M` missed (the `cdr_type` dictionary)."""
    user_id: int | None = None
    """The user the call belongs to."""
    transcript_speakers: str | None = None
    """The transcript by speaker."""
    cx_score: int | None = None
    """A customer-experience score, 0 to 100."""
    metadata: Any = None
    """Any JSON a client attached to the recording."""


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
    """The record's id."""
    call_id: ShortText | None = None
    """The SIP Call-ID of the leg."""
    created_at: str | None = None
    """When the leg was answered (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    dst: ShortText | None = None
    """The number of the leg's remote party."""
    dst_id: str | None = None
    """The leg's remote party (a user's id, ...)."""
    dst_ua: str | None = None
    """The remote party's user agent."""
    duration: Seconds | None = None
    """Seconds the leg was connected."""
    media_session_id: int | None = None
    """The media session of the leg."""
    src: ShortText | None = None
    """The number of the leg's own party."""
    src_id: str | None = None
    """The leg's own party (a user's id, ...)."""
    src_ua: str | None = None
    """The own party's user agent."""
    t_cause: str | None = None
    """Why the call ended."""
    type: str | None = None
    """`audio`, `video` or `screenshare` (the `media_type` dictionary)."""
    user_id: int | None = None
    """The user the call belongs to."""


class MediaSession(Resource):
    id: int = 0
    """The session's id."""
    call_id: str | None = None
    """The SIP Call-ID of the leg."""
    created_at: str | None = None
    """When the leg was answered (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    dst_id: str | None = None
    """The leg's remote party (a user's id, ...)."""
    dst_ua: str | None = None
    """The remote party's user agent."""
    duration: Seconds | None = None
    """Seconds the session lasted."""
    src_id: str | None = None
    """The leg's own party (a user's id, ...)."""
    src_ua: str | None = None
    """The own party's user agent."""
    status: str | None = None
    """`INITIAL`, `RINGING`, `CONNECTED` or `HANGUP` (the `media_status` dictionary)."""
    type: str | None = None
    """`audio`, `video` or `screenshare` (the `media_type` dictionary)."""
    updated_at: str | None = None
    """When the session last changed (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    user: int | None = None
    """The user the call belongs to."""


class Voicemessage(Resource):
    id: int = 0
    """The message's id."""
    caller: str | None = None
    """The calling number."""
    callerid: str | None = None
    """Who left the message: `"Name" <number>`, the number alone, or `anonymous`."""
    dialled: str | None = None
    """The number or extension the call was made to."""
    duration: Seconds | None = None
    """Seconds of the message."""
    extension_id: int | None = None
    """The user whose voicemail took the message."""
    folder: int | None = None
    """The folder it is in: 0 INBOX, 1 Old, 2 Work, 3 Family, 4 Friends, 5 Urgent."""
    is_new: bool | None = None
    """Whether nobody has listened to it yet."""
    live_id: int | None = None
    """The live call that left it."""
    origtime: str | None = None
    """When the voicemail answered (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    parent_live_id: int | None = None
    """The live call this one went on from."""
    transcript: str | None = None
    """The message's transcript."""


class Chat(Resource):
    id: int = 0
    """The chat's id."""
    created_at: str | None = None
    """When the chat started (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    customer_id: int | None = None
    """The customer whose website it was on."""
    duration: Seconds | None = None
    """Seconds the chat lasted (0 until it ends)."""
    operator_id: int | None = None
    """The user who answered it (None: nobody did)."""
    operator_ua: str | None = None
    """The operator's user agent."""
    state: int | None = None
    """1 waiting, 2 active, 3 ended, 4 missed (the `chat_state` dictionary)."""
    website_id: int | None = None
    """The website the chat started on."""
    visitor_city: str | None = None
    """The visitor's city."""
    visitor_country: str | None = None
    """The visitor's country code."""
    visitor_email: str | None = None
    """The visitor's email address."""
    visitor_geo: str | None = None
    """The visitor's coordinates."""
    visitor_id: str | None = None
    """The visitor's id on the website."""
    visitor_ip: str | None = None
    """The visitor's IP address."""
    visitor_name: str | None = None
    """The visitor's name."""
    visitor_referer: str | None = None
    """The page the visitor came from."""
    visitor_ua: str | None = None
    """The visitor's browser."""


class ChatMsg(Resource):
    """One chat message (the spec shows no shape): `direction` is `in` from the visitor, `out` from
    the operator `user_id`."""

    id: int = 0
    """The message's id."""
    chat_id: int | None = None
    """The chat it belongs to."""
    user_id: int | None = None
    """The chat's operator."""
    direction: str | None = None
    """`in` from the visitor, `out` from the operator."""
    message: str | None = None
    """The message's text."""
    created_at: str | None = None
    """When it was sent (UTC, `YYYY-MM-DD HH:MM:SS`)."""
