"""Read-your-writes across processes: a write answers the log's position, a read waits for one.

Every answer to a request that may write (any method but GET, HEAD and OPTIONS) carries
`X-Telephony-Position`: the head of the log as this process saw it when the answer left, at or past
every event the request appended. A request that sends the header back waits, before its handler
runs, until this process's read models have followed the log to that position (other processes'
commits reach them by the log's followers), for at most `WAIT_SECONDS` of real time: then a 503
says so. Without the header a request, a write too (its token may come from another process's
login), waits for the log's head at its start (`EventLog.catch_up`: at once in one process; on
PostgreSQL, the head read from the server). A header that is not a whole number is a 400 naming it."""

from __future__ import annotations

import asyncio

from aiohttp import web

from ..domain.errors import Invalid
from ..keys import EVENT_LOG
from .errors import error_response

HEADER = "X-Telephony-Position"
WAIT_SECONDS = 10.0
READS = frozenset({"GET", "HEAD", "OPTIONS"})


async def reached(request: web.Request) -> web.Response | None:
    """Wait for the position the request asks for (or the head at its start); an error answer if it
    cannot be had, else None. A request that need not wait (its position reached, or no position asked
    and no other process writing) costs no timer."""
    event_log = request.app.get(EVENT_LOG)
    if event_log is None:
        return None
    wanted = request.headers.get(HEADER)
    if wanted is None:
        if request.method == "OPTIONS" or not event_log.shared:
            return None
    elif not (wanted.isascii() and wanted.isdigit() and len(wanted) < 19):
        shown = wanted if len(wanted) <= 24 else wanted[:21] + "..."
        raise Invalid.field(HEADER, f"Expected a position of the log, a whole number (got {shown!r})")
    elif int(wanted) <= event_log.position:
        return None
    try:
        async with asyncio.timeout(WAIT_SECONDS):
            if wanted is not None:
                await event_log.wait_beyond(int(wanted) - 1)
            else:
                await event_log.catch_up()
    except TimeoutError:
        return error_response(503, f"The log has not reached position {wanted} here yet; try again later")
    return None


def stamp(request: web.Request, response: web.StreamResponse) -> None:
    """A write's answer says the position a later read may ask for."""
    if request.method not in READS and not response.prepared and (event_log := request.app.get(EVENT_LOG)):
        response.headers[HEADER] = str(event_log.position)
