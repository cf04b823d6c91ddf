"""The events of messages (SMS, chats, faxes, chat messages): their records' own, some with more.

A sent SMS's record carries the simulator's plan of its delivery (`steps`), and a chat that has an
operator carries when it ends: the messaging simulator's timers are derived from them.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from ..schemas import Chat, Sms
from .resources import ResourceCreated, resource_events


class SmsSteps(msgspec.Struct, frozen=True, kw_only=True):
    """What happens to a sent SMS: sent at `sent_at`, then delivered or failed (`reason`) at `final_at`."""

    sent_at: float
    """When it leaves (clock time, epoch seconds)."""
    final_at: float
    """When it is delivered or fails (clock time, epoch seconds)."""
    delivered: bool
    """Whether it is delivered (else it fails)."""
    reason: str | None
    """Why it fails."""


class SmsCreated(ResourceCreated, frozen=True, kw_only=True, tag="sms.created"):
    """An SMS record: sent (queued, with its plan) or received."""

    kind: ClassVar[str] = "sms"
    body: Sms
    """The SMS's record, as the API shows it."""
    steps: SmsSteps | None = None
    """The plan of a sent SMS's delivery (None: received)."""


class ChatCreated(ResourceCreated, frozen=True, kw_only=True, tag="chat.created"):
    """A website chat: active while an operator answers it, until `ends_at`."""

    kind: ClassVar[str] = "chat"
    body: Chat
    """The chat's record, as the API shows it."""
    ends_at: float | None = None
    """When it ends (clock time, epoch seconds; None: nobody answers it)."""
    lasts: float | None = None
    """Seconds it lasts."""


SMS = resource_events("sms", Sms, created=SmsCreated)
CHAT = resource_events("chat", Chat, created=ChatCreated)
