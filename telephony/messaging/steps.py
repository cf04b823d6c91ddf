"""What the messaging simulator still has to do, in memory, and the timers that do it.

`Pending` folds the log: sent SMS not yet delivered or failed (with their plan), and chats still
going (with when they end). `Steps` owns the timers: one per SMS or chat at its next due time, set
when an event makes it due and derived again at every start, so a restart goes on where it was
and a moved clock takes every due step in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from ..clock import Clock
from ..domain.events.accounts import CustomerDeleted
from ..domain.events.messaging import CHAT, SMS, ChatCreated, SmsCreated, SmsSteps
from ..domain.events.resources import ResourceCleared, ResourceDeleted, ResourceUpdated
from ..eventlog import EventLog, Metadata, RecordedEvent
from ..projections.memory import MemoryProjection
from ..reactors.scheduler import Job, Timers
from . import chats, sms

SIMULATOR = Metadata(source="simulator")
Key = tuple[str, int]
"""("sms" or "chat", its id)."""


class Pending(MemoryProjection):
    """SMS on their way and chats going on: (kind, id) -> (customer, the plan, the next due time)."""

    name = "pending_messages"
    handles = frozenset({*SMS.all, CHAT.created, CHAT.updated, CustomerDeleted})
    kept_as = list[tuple[str, int, int, dict[str, Any], float]]

    def __init__(self, on_change: Callable[[Key], None] | None = None) -> None:
        self.on_change = on_change
        self.reset()

    def reset(self) -> None:
        self.due: dict[Key, tuple[int, dict[str, Any], float]] = {}

    def apply(self, event: RecordedEvent) -> None:
        match event.event:
            case CustomerDeleted(id=customer):
                self._forget(customer)
            case ResourceCleared(customer_id=customer) as cleared:
                self._forget(customer, cleared.kind)
            case SmsCreated(id=id_, customer_id=customer, steps=SmsSteps() as steps) if isinstance(id_, int):
                self._set((SMS.kind, id_), (customer, msgspec.structs.asdict(steps), steps.sent_at))
            case ChatCreated(id=id_, customer_id=customer, ends_at=ends_at, lasts=lasts) if (
                isinstance(id_, int) and ends_at is not None
            ):
                self._set((CHAT.kind, id_), (customer, {"ends_at": ends_at, "lasts": lasts}, ends_at))
            case ResourceUpdated(id=int(id_), changes=changes) as updated if (updated.kind, id_) in self.due:
                self._updated((updated.kind, id_), changes)
            case ResourceDeleted(id=int(id_)) as deleted:
                self.due.pop((deleted.kind, id_), None)

    def _forget(self, customer: int, kind: str | None = None) -> None:
        """What a customer's deletion (every kind) or a clear of one kind of its records leaves undue."""
        for key in [key for key, (owner, _, _) in self.due.items() if owner == customer and kind in (None, key[0])]:
            del self.due[key]

    def _updated(self, key: Key, changes: dict[str, Any]) -> None:
        """A sent SMS is due again when it is delivered or fails; a chat is over once it ends."""
        if key[0] == "sms" and changes.get("result") == sms.SENT:
            customer, steps, _ = self.due[key]
            self._set(key, (customer, steps, steps["final_at"]))
        elif changes.get("result") in (sms.DELIVERED, sms.FAILED) or changes.get("state") in (
            chats.ENDED,
            chats.MISSED,
        ):
            del self.due[key]

    def _set(self, key: Key, value: tuple[int, dict[str, Any], float]) -> None:
        self.due[key] = value
        if self.on_change is not None:
            self.on_change(key)

    def state(self) -> Any:
        return dict(self.due)

    def snapshot(self) -> Any:
        return [(kind, id_, customer, plan, due) for (kind, id_), (customer, plan, due) in self.due.items()]

    def restore(self, kept: Any) -> None:
        self.due = {(kind, id_): (customer, plan, due) for kind, id_, customer, plan, due in kept}

    def fresh(self) -> MemoryProjection:
        return Pending()


class Steps:
    """The timers of pending SMS and chats."""

    def __init__(self, pending: Pending, event_log: EventLog, scheduler: Timers, clock: Clock) -> None:
        self._pending = pending
        self._log = event_log
        self._scheduler = scheduler
        self._clock = clock

    def follow(self, key: Key) -> None:
        found = self._pending.due.get(key)
        if found is not None:
            self._scheduler.at(found[2], _name(key), self._job(key))

    def timers(self) -> Iterator[tuple[float, str, Job]]:
        """The timer of every pending SMS and chat, derived at every start."""
        for key, (_, _, due) in list(self._pending.due.items()):
            yield due, _name(key), self._job(key)

    def _job(self, key: Key) -> Job:
        async def step() -> None:
            found = self._pending.due.get(key)
            if found is None:
                return
            customer_id, plan, _ = found
            if key[0] == "sms":
                decision = sms.stepped(customer_id, key[1], msgspec.convert(plan, SmsSteps), self._clock.time)
            else:
                decision = chats.ended(customer_id, key[1], msgspec.convert(plan, chats.Ending), self._clock.time)
            await self._log.transact(decision, SIMULATOR)

        return step


def _name(key: Key) -> str:
    return f"{key[0]}:{key[1]}"
