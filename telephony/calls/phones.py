"""Calls a user's softphone places (a SIP INVITE): the click-to-call `POST /calls` makes for the user.

The same code path as the route: its access (`may change calls`, a 403 otherwise), its body's `to`
read as the route reads it (a 400 naming `to`), then `click_to_call` with its checks (the caller's
registration, emergency numbers, routing rules, the balance). The caller's side is the phone that
dialled, answered as the call is placed. A phone hangs up (its CANCEL or BYE) as `DELETE /calls/{id}`
does for the user. A refusal is the API's error (`ApiError`), which SIP maps to a response.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import msgspec

from ..api.errors import Forbidden, Unauthorized
from ..api.wire import decode
from ..documents.listing import ReadStore
from ..domain.calls.call import Call
from ..eventlog import Metadata
from .engine import Calls
from .handlers import CHANGE
from .parties import Client
from .placing_handlers import PlaceCall, click_to_call


class Account(Protocol):
    """What the route's access reads of a user."""

    @property
    def is_root(self) -> bool: ...

    @property
    def roles(self) -> tuple[str, ...]: ...

    @property
    def active(self) -> bool: ...


@dataclass(frozen=True)
class PhoneCalls:
    reader: ReadStore
    calls: Calls
    account_of: Callable[[int], Account | None]

    async def place(self, customer_id: int, user_id: int, to: str, phone: Client, meta: Metadata) -> Call:
        """The call the user's `phone` dialled to `to` (a number or an extension), as `POST /calls`."""
        account = self.account_of(user_id)
        if account is None or not account.active:
            raise Unauthorized(f"User {user_id} may not sign in")
        if (why := CHANGE.refused(account.is_root, account.roles)) is not None:
            raise Forbidden(why)
        body = decode(msgspec.json.encode({"to": to}), PlaceCall)
        return await click_to_call(self.reader, self.calls, customer_id, user_id, body, meta, phone=phone)

    async def hang_up(self, call_id: int, customer_id: int, user_id: int, meta: Metadata) -> None:
        await self.calls.hang_up(call_id, customer_id, user_id, meta)
