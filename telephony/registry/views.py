"""Nested and narrowed lists: the same records as a registry resource, seen through a path.

`/users/{id}/cdrs` is the CDR list narrowed to one user, `/ddis/calltracking` the numbers of call
tracking campaigns, and so on; each is the resource's declaration with a path and a scope. A nested
view names its parent: a user or contact the caller cannot see (another customer's, or none) makes
the list a 404, never an empty 200. (`/calls/{id}/monitors` hangs from a live call: `calls.idle`.)
"""

from __future__ import annotations

import dataclasses

from aiohttp import web

from ..documents.conditions import AnyOf, Condition, Is, Null, Number, NumberOf, both, equals
from ..domain.schemas import CONTACT_NUMBERS
from .catalogue import BY_PATH
from .resource import Op, Parent, Resource


def _by_user(request: web.Request, customer_id: int) -> Condition:
    return Is("user_id", "=", int(request.match_info["id"]))


def _by_contact(request: web.Request, customer_id: int) -> Condition:
    """Calls named after the contact, or to or from one of its numbers as it has them now."""
    contact_id = int(request.match_info["id"])
    party = f"contact:{contact_id}"
    numbers = NumberOf(("src", "dst"), "contact", tuple(CONTACT_NUMBERS), equals(id=contact_id))
    return AnyOf((Is("src_id", "=", party), Is("dst_id", "=", party), numbers))


def _tracked_numbers(request: web.Request, customer_id: int) -> Condition:
    return Null("campaign_id", present=True)


def _tracked_calls(request: web.Request, customer_id: int) -> Condition:
    """Calls to one of the customer's numbers of a call tracking campaign."""
    tracking = both(Is("customer_id", "=", customer_id), Null("campaign_id", present=True))
    return NumberOf(("dst",), "ddi", ("e164",), tracking)


def _thread(request: web.Request, customer_id: int) -> Condition:
    a, b = request.match_info["from"].lstrip("+"), request.match_info["to"].lstrip("+")
    pairs = AnyOf((both(Number(("from",), a), Number(("to",), b)), both(Number(("from",), b), Number(("to",), a))))
    return both(Is("user_id", "=", int(request.match_info["id"])), pairs)


def view(path: str, of: str, scope, parent: Parent | None = None, *, added: bool = False) -> Resource:
    base = BY_PATH[of]
    ops = frozenset({Op.LIST})
    return dataclasses.replace(
        base, path=path, ops=frozenset() if added else ops, added_ops=ops if added else frozenset(),
        scope=scope, parent=parent,
    )  # fmt: skip


USER = r"users/{id:\d+}"
THREAD = r"{from:\+?\d+}/{to:\+?\d+}"
A_USER, A_CONTACT = Parent("user", "users"), Parent("contact", "contacts")
VIEWS: tuple[Resource, ...] = (
    view(f"{USER}/contacts", "contacts", _by_user, A_USER),
    view(f"{USER}/cdrs", "cdrs", _by_user, A_USER),
    view(f"{USER}/chatmsgs", "chatmsgs", _by_user, A_USER),
    view(f"{USER}/smsthreads/{THREAD}", "sms", _thread, A_USER),
    view(f"{USER}/sms/threads/{THREAD}", "sms", _thread, A_USER),
    view(r"contacts/{id:\d+}/cdrs", "cdrs", _by_contact, A_CONTACT),
    view("cdrs/calltracking", "cdrs", _tracked_calls),
    view("calltracking/cdrs", "cdrs", _tracked_calls),
    view("ddis/calltracking", "ddis", _tracked_numbers),
    view("calltracking/ddis", "ddis", _tracked_numbers),
)
