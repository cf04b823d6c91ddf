"""A call as RFC 4235 dialog-info XML, seen from a watched node (a user, an IVR, a queue, a conference).

The platform's CTI connector reads, for each `<dialog>`: `id` (the REST call id before the first
`-`), `direction` (`receiver`: the call came in to the node), `<state>`, the remote and local
identities with their display names, and the local target's params `+sip.rendering` (`no` while on
hold), `timestamp.start` (epoch seconds of the call's start) and `context`.
"""

from __future__ import annotations

from html import escape

from ..domain.calls.call import ACCEPTED, CONNECTED, HANGUP, INITIAL, ON_HOLD, RINGING, Call, Party, sip_call_id
from .directory import Node

CONTENT_TYPE = "application/dialog-info+xml"
STATES = {INITIAL: "trying", ACCEPTED: "proceeding", RINGING: "early", CONNECTED: "confirmed",
          ON_HOLD: "confirmed", HANGUP: "terminated"}  # fmt: skip
PLATFORM_IDS = {"ivr": "ivr", "queue": "queue", "conf": "conference"}
"""A node's kind as a platform party's id names it (`ivr:<id>`)."""


def concerns(call: Call, node: Node) -> bool:
    """Whether the node takes part in the call: a user on either side or as its owner, the IVR or
    conference it is in, the queue its caller waits in (or was taken from)."""
    if node.kind == "user":
        return node.id in (call.user_id, call.src.user_id, call.dst.user_id)
    if node.kind == "queue" and call.queue_id == node.id:
        return True
    return call.dst.id == f"{PLATFORM_IDS[node.kind]}:{node.id}"


def node_leg(call: Call, node: Node) -> str:
    """The node's own leg: the caller's (`src`) when a user placed the call, else the reached one."""
    if node.kind == "user" and (call.src.user_id == node.id or (call.dst.user_id != node.id and call.destination
                                                                 != "in")):  # fmt: skip
        return "src"
    return "dst"


def dialog(call: Call, node: Node, domain: str) -> str:
    """One `<dialog>` element of the call as the node sees it."""
    leg = node_leg(call, node)
    local, remote = (call.src, call.dst) if leg == "src" else (call.dst, call.src)
    state = STATES.get(call.state or INITIAL, "trying")
    ended = f' event="{_ending(call, leg)}"' if call.state == HANGUP else ""
    rendering = "no" if call.state == ON_HOLD else "yes"
    params = (("+sip.rendering", rendering), ("timestamp.start", str(int(call.placed_at))), ("context", call.context))
    target = "".join(f'<param pname="{name}" pval="{escape(value)}"/>' for name, value in params)
    local_uri = party_uri(local, domain)
    return (f'<dialog id="{sip_call_id(call.id, leg)}" call-id="{sip_call_id(call.id, leg)}" '
            f'direction="{"initiator" if leg == "src" else "receiver"}">'
            f"<state{ended}>{state}</state>"
            f"<local>{identity(local, local_uri)}<target uri={_attr(local_uri)}>{target}</target></local>"
            f"<remote>{identity(remote, party_uri(remote, domain))}</remote></dialog>")  # fmt: skip


def document(entity: str, version: int, full: bool, dialogs: list[str]) -> bytes:
    """The NOTIFY body: the node's dialogs, all of them (`full`) or those that changed."""
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<dialog-info xmlns="urn:ietf:params:xml:ns:dialog-info" '
            f'version="{version}" state="{"full" if full else "partial"}" entity={_attr(entity)}>')  # fmt: skip
    return (head + "".join(dialogs) + "</dialog-info>\n").encode()


def _ending(call: Call, leg: str) -> str:
    """RFC 4235's terminating event: `cancelled` when the call was never connected, else the BYE of a side."""
    if call.connected_at is None:
        return "cancelled"
    return "local-bye" if call.ended_by == leg else "remote-bye"


def party_uri(party: Party, domain: str) -> str:
    number = party.number or (str(party.user_id) if party.user_id else "anonymous")
    return f"sip:{number}@{domain}"


def display_name(party: Party) -> str:
    """How a party is named to clients: its name (a user's, a contact's), else its number."""
    return party.name or party.number or (str(party.user_id) if party.user_id else "")


def identity(party: Party, uri: str) -> str:
    """The party's identity element, with its display name."""
    display = display_name(party)
    name = f" display={_attr(display)}" if display else ""
    return f"<identity{name}>{escape(uri)}</identity>"


def _attr(value: str) -> str:
    return f'"{escape(value)}"'
