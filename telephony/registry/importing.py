"""Running an import against an open event log: the control endpoint and the CLI share this."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence

import msgspec
from aiohttp import web

from ..api.context import meta_of
from ..api.control import control_route, control_shape
from ..api.responses import json_response, streamed
from ..clock import Clock, wire_time
from ..eventlog import EventLog, Metadata
from ..keys import ACCOUNTS
from ..security import Resealer, Sealer, hash_password, new_token
from . import exporting, loading, transfer


async def run_import(log: EventLog, sealer: Sealer, clock: Clock, lines: Callable[[], Iterable[bytes]],
                     meta: Metadata, progress: Callable[[int], object] | None = None,
                     exporters: Sequence[Sealer] = ()) -> int:  # fmt: skip
    """Check every line, then append every record in one transaction; returns the record count.

    Sealed secrets are opened with this data dir's key or one of `exporters` (the keys of the data
    dirs the lines were exported from) and sealed again with this data dir's key."""
    resealer = Resealer(sealer, exporters)
    count = await asyncio.to_thread(transfer.check, lines(), resealer)  # off the event loop: it takes a while
    decide = loading.decide(
        lines, resealer, now=wire_time(clock.now()), new_sip_password=lambda: sealer.seal(new_token()[:16]),
        unusable_hash=hash_password(new_token()), progress=progress,
    )  # fmt: skip
    await log.transact(decide, meta, keep=False)
    return count


async def import_lines(request: web.Request) -> web.Response:
    """POST /_telephony/import: the body is JSON lines, one record each; sealed secrets must open with
    this server's own key (`telephony import --seal-key` takes another data dir's)."""
    accounts = request.app[ACCOUNTS]
    body = await request.read()
    count = await run_import(accounts.log, accounts.sealer, accounts.clock, body.splitlines, meta_of(request))
    return json_response({"data": {"imported": count}})


async def export_lines(request: web.Request) -> web.StreamResponse:
    """GET /_telephony/export: every record as JSON lines (the import format)."""
    lines = await request.app[ACCOUNTS].log.query(lambda conn: list(exporting.export(conn)))
    chunks = (b"\n".join(lines[start : start + 1000]) + b"\n" for start in range(0, len(lines), 1000))
    return await streamed(request, JSON_LINES, chunks)


class Imported(msgspec.Struct, kw_only=True):
    imported: int


JSON_LINES = "application/x-ndjson"
ROUTES = [
    control_route("POST", "/import", import_lines,
                  control_shape(Imported, body=str, body_media=JSON_LINES, errors=(400, 409))),
    control_route("GET", "/export", export_lines, control_shape(envelope="file", media=JSON_LINES)),
]  # fmt: skip
