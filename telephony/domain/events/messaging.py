"""The events of messages (SMS, chats, faxes, chat messages): their records' own, some with more.

A sent SMS's record carries the simulator's plan of its delivery (`steps`), and a chat that has an
operator carries when it ends: the messaging simulator's timers are derived from them.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from .resources import ResourceCreated, resource_events


class SmsSteps(msgspec.Struct, frozen=True, kw_only=True):
    """What happens to a sent SMS: sent at `sent_at`, then delivered or failed (`reason`) at `final_at`."""

    sent_at: float
    final_at: float
    delivered: bool
    reason: str | None


class SmsCreated(ResourceCreated, frozen=True, kw_only=True, tag="sms.created"):
    """An SMS record: sent (queued, with its plan) or received."""

    kind: ClassVar[str] = "sms"
    steps: SmsSteps | None = None
    """The plan of a sent SMS's delivery (None: received)."""


class ChatCreated(ResourceCreated, frozen=True, kw_only=True, tag="chat.created"):
    """A website chat: active while an operator answers it, until `ends_at`."""

    kind: ClassVar[str] = "chat"
    ends_at: float | None = None
    lasts: float | None = None
    """Seconds it lasts."""


SMS = resource_events("sms", created=SmsCreated)
CHAT = resource_events("chat", created=ChatCreated)
