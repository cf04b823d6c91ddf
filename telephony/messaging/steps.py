"""What the messaging simulator still has to do, in memory, and the timers that do it.

`Pending` folds the log: sent SMS not yet delivered or failed (with their plan), and chats still
going (with when they end). `Steps` owns the timers: one per SMS or chat at its next due time, set
when an event makes it due and derived again at every start, so a restart goes on where it was
and a moved clock takes every due step in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..clock import Clock
from ..documents.projection import CUSTOMER_DELETED
from ..eventlog import EventLog, Metadata, RecordedEvent
from ..projections.memory import MemoryProjection
from ..reactors.scheduler import Job, Scheduler
from . import chats, sms

SIMULATOR = Metadata(source="simulator")
Key = tuple[str, int]
"""("sms" or "chat", its id)."""


class Pending(MemoryProjection):
    """SMS on their way and chats going on: (kind, id) -> (customer, the plan, the next due time)."""

    name = "pending_messages"
    handles = frozenset({"sms.created", "sms.updated", "sms.deleted", "sms.cleared", "chat.created", "chat.updated",
                         CUSTOMER_DELETED})  # fmt: skip
    kept_as = list[tuple[str, int, int, dict[str, Any], float]]

    def __init__(self, on_change: Callable[[Key], None] | None = None) -> None:
        self.on_change = on_change
        self.reset()

    def reset(self) -> None:
        self.due: dict[Key, tuple[int, dict[str, Any], float]] = {}

    def apply(self, event: RecordedEvent) -> None:
        d, kind = event.data, event.type.partition(".")[0]
        if event.type == CUSTOMER_DELETED or event.type.endswith(".cleared"):
            customer = d["id"] if event.type == CUSTOMER_DELETED else d["customer_id"]
            gone = [key for key, (owner, _, _) in self.due.items() if owner == customer and
                    (event.type == CUSTOMER_DELETED or key[0] == kind)]  # fmt: skip
            for key in gone:
                del self.due[key]
            return
        key = (kind, d["id"])
        if event.type == "sms.created" and "steps" in d:
            self._set(key, (d["customer_id"], d["steps"], d["steps"]["sent_at"]))
        elif event.type == "chat.created" and "ends_at" in d:
            self._set(key, (d["customer_id"], {"ends_at": d["ends_at"], "lasts": d["lasts"]}, d["ends_at"]))
        elif event.type == "sms.updated" and key in self.due:
            result = d["changes"].get("result")
            if result == sms.SENT:
                customer, steps, _ = self.due[key]
                self._set(key, (customer, steps, steps["final_at"]))
            elif result in (sms.DELIVERED, sms.FAILED):
                del self.due[key]
        elif (
            event.type == "chat.updated"
            and d["changes"].get("state") in (chats.ENDED, chats.MISSED)
            or event.type.endswith(".deleted")
        ):
            self.due.pop(key, None)

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

    def __init__(self, pending: Pending, event_log: EventLog, scheduler: Scheduler, clock: Clock) -> None:
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
            await self._log.transact(_DECISIONS[key[0]](customer_id, key[1], plan, self._clock.time), SIMULATOR)

        return step


_DECISIONS: dict[str, Callable[..., Any]] = {"sms": sms.stepped, "chat": chats.ended}


def _name(key: Key) -> str:
    return f"{key[0]}:{key[1]}"
