"""File renditions of stored records: traces, captures, recordings, exports, fax PDFs.

Each is derived from the record itself, so it is the same on every request and after a replay.
A file answers with its own media type, never JSON, and is sent in chunks with its exact
`Content-Length`: a recording is rendered as it is sent, never built whole.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable

import msgspec
from aiohttp import web

from ..api.access import may_read
from ..api.context import principal
from ..api.errors import NotFound
from ..api.responses import collection, streamed
from ..api.route_table import Route
from ..api.shapes import Shape
from ..documents import reads
from ..domain.calls.call import stream_of
from ..domain.events.calls import CallEnded
from ..domain.nouns import not_found
from ..keys import EVENT_LOG, PRINCIPAL, READER
from ..media import dialogue, mp3, pcap, pdf, sip
from ..media.sip import SipMessage
from ..projections import blobs
from .catalogue import BY_PATH
from .resource import Resource

Rendition = tuple[int, Iterable[bytes]]
"""A file's byte length and its bytes, chunk by chunk."""
Render = Callable[[dict], Rendition]


SIP_CALL_ID = re.compile(r"^(?P<call>\d{1,18})-(?P<leg>src|dst)@telephony$")
"""A media record's `call_id`: the SIP Call-ID of one leg of a call (`domain.calls.sip_call_id`)."""


class CdrNote(msgspec.Struct, kw_only=True):
    id: int
    cdr_id: int
    text: str


def _whole(data: bytes) -> Rendition:
    return len(data), (data,)


def _fax_pdf(fax: dict) -> Rendition:
    return _whole(pdf.fax(fax))


def _recording(record: dict) -> Rendition:
    return mp3.size_for(record.get("duration")), mp3.stream(record.get("duration"))


SIP_FILES: dict[str, tuple[str, Callable[[list[SipMessage]], bytes]]] = {
    "trace": ("text/plain", lambda messages: sip.render_trace(messages).encode()),
    "pcap": ("application/vnd.tcpdump.pcap", pcap.capture),
}
"""Renditions of a call's SIP dialogue: drawn from the call's events when this log holds them."""
RENDERINGS: dict[str, tuple[str, Render]] = {
    "trace": ("text/plain", lambda r: _whole(sip.trace_text(r).encode())),
    "pcap": ("application/vnd.tcpdump.pcap", lambda r: _whole(pcap.capture(sip.ladder(r)))),
    "mp3": ("audio/mpeg", _recording),
    "pdf": ("application/pdf", _fax_pdf),
}


async def _record(request: web.Request, resource: Resource) -> dict:
    who = principal(request)
    record_id = int(request.match_info["id"])
    body = await reads.body(request.app[READER], resource.kind, record_id, who.customer_id)
    if body is None:
        raise NotFound(not_found(resource.kind, record_id))
    return msgspec.json.decode(body)


def file_route(path: str, extension: str, *, origin: str = "spec") -> Route:
    resource = BY_PATH[path]
    content_type, render = RENDERINGS[extension]

    async def handle(request: web.Request) -> web.StreamResponse:
        record = await _record(request, resource)
        if extension in SIP_FILES and (messages := await _call_dialogue(request, resource.kind, record)) is not None:
            size, chunks = _whole(SIP_FILES[extension][1](messages))
        else:
            size, chunks = render(record)
        return await streamed(request, content_type, chunks, size)

    return Route("GET", rf"/{path}/{{id:\d+}}.{extension}", handle, may_read(resource.module),
                 origin=origin, shape=_file(content_type, resource.module))  # type: ignore[arg-type]  # fmt: skip


async def _call_dialogue(request: web.Request, kind: str, record: dict) -> list[SipMessage] | None:
    """The SIP dialogue of the call that left this CDR (or this leg's, for an msdr), from the call's
    events; None when no call of this log left the record (an imported one), which is drawn from
    its own fields instead."""
    if kind == "cdr":
        call_id, leg = record.get("live_id"), None
    elif kind == "msdr" and (match := SIP_CALL_ID.match(str(record.get("call_id") or ""))):
        call_id, leg = int(match["call"]), match["leg"]
    else:
        return None
    if not isinstance(call_id, int):
        return None
    events = await request.app[EVENT_LOG].read_stream(stream_of(call_id))
    ended = events[-1].event if events else None
    if not isinstance(ended, CallEnded) or ended.records is None or ended.final is None:
        return None
    claimed = ended.records.cdr if leg is None else ended.records.msdr.get(leg)
    if claimed != record["id"] or ended.final.customer_id != request[PRINCIPAL].customer_id:
        return None
    pairs = dialogue.stored(event.event for event in events)
    return dialogue.dialogue(pairs) if leg is None else dialogue.leg_dialogue(pairs, leg)


async def cdr_notes(request: web.Request) -> web.Response:
    cdr = await _record(request, BY_PATH["cdrs"])
    notes = [{"id": 1, "cdr_id": cdr["id"], "text": cdr["info"]}] if cdr.get("info") else []
    return collection(notes)


async def user_cdrs_csv(request: web.Request) -> web.Response:
    """Every CDR of one user of the caller's customer (404 for any other), oldest first, as CSV with the
    CDR model's columns."""
    cdrs = BY_PATH["cdrs"]
    who = principal(request)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(cdrs.props), extrasaction="ignore")
    writer.writeheader()
    user_id = int(request.match_info["id"])
    if await reads.body(request.app[READER], "user", user_id, who.customer_id) is None:
        raise NotFound(not_found("user", user_id))
    async for body in reads.each_with(request.app[READER], cdrs.kind, who.customer_id, "user_id", user_id):
        writer.writerow(msgspec.json.decode(body))
    return web.Response(body=out.getvalue().encode(), content_type="text/csv")


async def uploaded_audio(request: web.Request) -> web.Response:
    """The file a voicemail announcement was uploaded with, byte for byte, as its own media type."""
    announcement = await _record(request, BY_PATH["vmannouncements"])
    if not announcement.get("sha256") or announcement.get("format") != request.match_info["format"]:
        raise NotFound(f"vmannouncements {announcement['id']} has no {request.match_info['format']} file")
    stored = await blobs.load(request.app[READER], announcement["sha256"])
    if stored is None:
        raise NotFound(f"vmannouncements {announcement['id']} has no stored file")
    media_type, data = stored
    return web.Response(body=data, content_type=media_type)


def _file(media: str, tag: str) -> Shape:
    return Shape(envelope="file", errors=(404,), media=media, tag=tag)


ROUTES = [
    file_route("cdrs", "trace"),
    file_route("cdrs", "pcap"),
    file_route("msdrs", "trace"),
    file_route("msdrs", "pcap"),
    file_route("monitors", "mp3"),
    file_route("voicemessages", "mp3"),
    file_route("faxes", "pdf", origin="real-platform"),
    Route("GET", r"/cdrs/{id:\d+}/notes", cdr_notes, may_read(BY_PATH["cdrs"].module),
          shape=Shape(CdrNote, "list", errors=(404,), tag="history")),
    Route("GET", r"/users/{id:\d+}/cdrs.csv", user_cdrs_csv, may_read(BY_PATH["cdrs"].module),
          shape=_file("text/csv", "history")),
    Route("GET", r"/vmannouncements/{id:\d+}.{format:mp3|mp4|wav|aac}", uploaded_audio,
          may_read(BY_PATH["vmannouncements"].module), origin="telephony", shape=_file("audio/*", "storage")),
]  # fmt: skip
