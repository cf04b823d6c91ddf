"""The calls module over HTTP: live calls, and controlling them while they live (placing them is
`placing_handlers`').

`GET /calls`, `/calls/{id}` and `/users/{id}/calls` show live calls only: a call is gone from them
at hangup, and its id is then a 404 to every method (a PATCH or DELETE as much as a GET). A change
the call's state refuses is a 400 naming the state and the field that asked for it.
`PATCH /calls/{id}` answers 200 with the LiveCall (the spec documents 301, which HTTP clients
would follow as a redirect; real clients accept 200).
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from aiohttp import web

from ..api.access import may_change, may_read
from ..api.context import meta_of, principal
from ..api.errors import BadRequest, NotFound
from ..api.responses import collection, single
from ..api.route_table import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..collections import parse, properties
from ..documents import reads
from ..documents.conditions import TRUE, holds, ordered
from ..domain.calls import rules
from ..domain.calls.call import Call
from ..domain.calls.fold import evolve
from ..domain.events.calls import CallEvent
from ..domain.nouns import not_found
from ..domain.schemas import LiveCall, Monitor, Webcall
from ..keys import CALLS, READER, SETTINGS
from . import parties, renditions
from .commands import Transfer
from .live import live_call
from .placing_handlers import (
    Destination,
    PlaceCall,
    PlaceLeadcall,
    PlaceWebcall,
    Text,
    place_call,
    place_leadcall,
    place_webcall,
    placing_shape,
    registrations_of,
)


class PatchCall(msgspec.Struct, kw_only=True):
    state: str | None = None
    dst: Destination | None = None
    labels: list[int] | None = None
    action_url: Text | None = None
    action_text: Text | None = None
    monitor_state: str | None = None


STATES: dict[str, Callable[[Call, float], list[CallEvent]]] = {
    "answer": rules.answer, "hold": rules.hold, "ON_HOLD": rules.hold, "unhold": rules.unhold,
    "resume": rules.unhold, "hangup": rules.hang_up, "HANGUP": rules.hang_up,
    "CONNECTED": lambda call, at: (rules.unhold if call.state == "ON_HOLD" else rules.answer)(call, at),
}  # fmt: skip
"""The `state` values PATCH accepts (case as written) and what each does (a hang-up as the side of the
user who asks: `rules.hang_up_for`)."""
HANG_UPS = frozenset({"hangup", "HANGUP"})
LIVE_CALL_PROPS = properties(LiveCall)


def _call_id(request: web.Request) -> int:
    return int(request.match_info["id"])


def _page(request: web.Request, calls: list[Call]) -> web.Response:
    """A page of live calls: paging, `filter`, `sort`/`dir` as every list has. Without a filter or
    another order, only the page's calls are drawn."""
    api = request.app[SETTINGS].api
    q = parse(request.query, LIVE_CALL_PROPS, default_limit=api.default_page_size, max_limit=api.max_page_size)
    now = request.app[CALLS].clock.time()
    if q.where == TRUE and q.order is None:
        by_id = calls[::-1] if q.descending else calls
        return collection([live_call(c, now) for c in by_id[q.offset : q.offset + q.limit]], len(calls))
    kept = [record for record in (live_call(c, now) for c in calls) if holds(record, q.where)]
    return collection(ordered(kept, q.order, q.descending)[q.offset : q.offset + q.limit], len(kept))


async def list_calls(request: web.Request) -> web.Response:
    who = principal(request)
    return _page(request, request.app[CALLS].live.of_customer(who.customer_id))


async def list_user_calls(request: web.Request) -> web.Response:
    who = principal(request)
    user_id = _call_id(request)
    if await reads.body(request.app[READER], "user", user_id, who.customer_id) is None:
        raise NotFound(not_found("user", user_id))
    return _page(request, request.app[CALLS].live.of_customer(who.customer_id, user_id))


async def list_queue_calls(request: web.Request) -> web.Response:
    """The callers in a queue, in the order they joined: waiting (`queue_state` `waiting`), ringing an
    agent (`ringing`) or talking to one (`connected`)."""
    who = principal(request)
    queue_id = _call_id(request)
    if await reads.body(request.app[READER], "queue", queue_id, who.customer_id) is None:
        raise NotFound(not_found("queue", queue_id))
    return _page(request, request.app[CALLS].live.of_queue(who.customer_id, queue_id))


def _live(request: web.Request, customer_id: int) -> Call:
    call = request.app[CALLS].live.get(_call_id(request), customer_id)
    if call is None:
        raise NotFound(f"Call {_call_id(request)} not found")
    return call


async def get_call(request: web.Request) -> web.Response:
    who = principal(request)
    call = _live(request, who.customer_id)
    return single(request, live_call(call, request.app[CALLS].clock.time()), f"/calls/{call.id}")


def _form_problems(body: PatchCall) -> list[tuple[str, str]]:
    """What is wrong with the PATCH body's own values: `state` and `monitor_state` outside what they take."""
    problems = []
    if body.state is not None and body.state not in STATES:
        problems.append(("state", f"Unknown state; use one of {', '.join(STATES)}."))
    if body.monitor_state is not None and body.monitor_state not in rules.MONITOR_COMMANDS:
        problems.append(("monitor_state", f"Use one of {', '.join(rules.MONITOR_COMMANDS)}."))
    return problems


def _commands(body: PatchCall, user_id: int) -> Callable[[Call, float], list[CallEvent]]:
    """The PATCH's changes as one command, taken in order: labels, action link, recording, state (a
    hang-up as `user_id`'s)."""
    state = rules.hang_up_for(user_id) if body.state in HANG_UPS else STATES.get(body.state or "")

    def command(call: Call, at: float) -> list[CallEvent]:
        events: list[CallEvent] = []
        steps: list[Callable[[Call], list[CallEvent]]] = []
        if body.labels is not None:
            steps.append(lambda c: rules.label(c, at, body.labels or []))
        if body.action_url is not None or body.action_text is not None:
            steps.append(lambda c: rules.set_action(c, at, body.action_url, body.action_text))
        if body.monitor_state is not None:
            steps.append(lambda c: rules.monitor(c, at, body.monitor_state or ""))
        if state is not None:
            steps.append(lambda c: state(c, at))
        for step in steps:
            taken = step(call)
            for event in taken:
                call = evolve(call, event)
            events += taken
        return events

    return command


async def patch_call(request: web.Request) -> web.Response:
    """Every change of the body in one transaction; a transfer (`dst`) answers the new live call that
    takes the call on (its `parent_id` the old one)."""
    who = principal(request)
    body = await read_json(request, PatchCall)
    problems = _form_problems(body)
    if not problems:
        _live(request, who.customer_id)  # a well-formed change of an ended or unknown call: 404, as GET
    known = await _labels(request, who.customer_id, body.labels)
    problems += [("labels", f"No call label {label} in your account.") for label in sorted(
        set(body.labels or ()) - known)]  # fmt: skip
    if problems:
        raise BadRequest.of(problems)
    calls, call_id = request.app[CALLS], _call_id(request)
    command = _commands(body, who.user_id)
    transfer = None
    if body.dst is not None:
        reader = request.app[READER]
        to = await parties.destination(reader, who.customer_id, body.dst, registrations_of(request), "dst")
        transfer = Transfer(to=to.party, outcome=to.outcome, context=to.context, target=to.target)
    call, child = await calls.control(call_id, who.customer_id, command, meta_of(request), transfer)
    shown = child or call
    return single(request, live_call(shown, calls.clock.time()), f"/calls/{shown.id}")


async def _labels(request: web.Request, customer_id: int, labels: list[int] | None) -> set[int]:
    if not labels:
        return set()
    found = await reads.bodies(request.app[READER], "calllabel", labels, customer_id)
    return set(found)


async def hang_up(request: web.Request) -> web.Response:
    who = principal(request)
    calls = request.app[CALLS]
    await calls.hang_up(_call_id(request), who.customer_id, who.user_id, meta_of(request))
    return web.Response(status=204)


async def call_monitors(request: web.Request) -> web.Response:
    """The recordings a call has left (a live call's recording is listed once the call ends)."""
    who = principal(request)
    call_id = _call_id(request)
    if not await request.app[CALLS].known(call_id, who.customer_id):
        raise NotFound(f"Call {call_id} not found")
    found = reads.each_with(request.app[READER], "monitor", who.customer_id, "live_id", call_id)
    return collection([msgspec.json.decode(body) async for body in found])


async def call_trace(request: web.Request) -> web.StreamResponse:
    """The SIP dialogue of a call so far, as text."""
    who = principal(request)
    call_id = _call_id(request)
    events = await request.app[CALLS].events(call_id, who.customer_id)
    if events is None:
        raise NotFound(f"Call {call_id} not found")
    return web.Response(text=renditions.trace(events), content_type="text/plain")


CALL = r"/calls/{id:\d+}"
LIVE_CALLS = Shape(LiveCall, "list", tag="calls")
READ, CHANGE = may_read("calls"), may_change("calls")
ROUTES = [
    Route("GET", "/calls", list_calls, READ, shape=LIVE_CALLS),
    Route("POST", "/calls", place_call, CHANGE, shape=placing_shape(PlaceCall, LiveCall)),
    Route("GET", CALL, get_call, READ, shape=Shape(LiveCall, errors=(404,), tag="calls")),
    Route("PATCH", CALL, patch_call, CHANGE, shape=Shape(LiveCall, body=PatchCall, errors=(400, 404), tag="calls")),
    Route("DELETE", CALL, hang_up, CHANGE, shape=Shape(envelope="none", status=204, errors=(404,), tag="calls")),
    Route("GET", CALL + "/trace", call_trace, READ,
          shape=Shape(envelope="file", errors=(404,), media="text/plain", tag="calls")),
    Route("GET", CALL + "/monitors", call_monitors, READ, shape=Shape(Monitor, "list", errors=(404,), tag="calls")),
    Route("POST", "/webcalls", place_webcall, CHANGE, shape=placing_shape(PlaceWebcall, Webcall)),
    Route("POST", "/leadcalls", place_leadcall, CHANGE, shape=placing_shape(PlaceLeadcall, LiveCall)),
    Route("GET", r"/users/{id:\d+}/calls", list_user_calls, READ, shape=LIVE_CALLS),
    Route("GET", r"/queues/{id:\d+}/calls", list_queue_calls, READ, shape=LIVE_CALLS, origin="telephony"),
]  # fmt: skip
