"""Live calls: an in-memory projection of call events, and the LiveCall the API shows of each.

A call is live from `call.placed` until `call.ended`; then it is gone from here (its history is in
the CDR, recording and media records). Calls are kept by id, by customer, by each user taking part
and by the queue a caller waits in, so a list of them costs a copy of references and no scan of
every live call.
"""

from __future__ import annotations

from typing import Any

from ..domain.billing import shown
from ..domain.calls.call import Call, sip_call_id, whole_seconds
from ..domain.calls.fold import CALL_TYPES, evolve
from ..domain.calls.queue import standing
from ..domain.dictionaries import CALL_DESTINATION
from ..domain.events.accounts import CustomerDeleted
from ..domain.events.calls import CallEvent, CallPlaced
from ..eventlog import RecordedEvent
from ..projections.memory import MemoryProjection

MONITOR_STATES = {"off": 0, "on": 1, "paused": 2}
"""A live call's `monitor_state`: 0 not recorded, 1 recording, 2 recording paused."""


class LiveCalls(MemoryProjection):
    """Live calls by id, by customer, by each user taking part and by the queue a caller is in; a
    closed customer's calls are gone with it."""

    name = "live_calls"
    handles = CALL_TYPES | {CustomerDeleted}
    kept_as = list[Call]

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.calls: dict[int, Call] = {}
        self._by_customer: dict[int, dict[int, Call]] = {}
        self._by_user: dict[Key, dict[int, Call]] = {}
        self._by_queue: dict[Key, dict[int, Call]] = {}

    def apply(self, event: RecordedEvent) -> None:
        match event.event:
            case CustomerDeleted(id=customer_id):
                for call_id in self._by_customer.pop(customer_id, {}):
                    del self.calls[call_id]
                for index in (self._by_user, self._by_queue):
                    for key in [key for key in index if key[0] == customer_id]:
                        del index[key]
            case CallEvent(id=call_id) as changed:
                before = self.calls.get(call_id) if not isinstance(changed, CallPlaced) else None
                self._put(before, evolve(before or Call(id=call_id), changed))

    def _put(self, before: Call | None, call: Call) -> None:
        """Keep `call` where `before` (None: a new call) was, or drop it once it ended."""
        of_customer = self._by_customer.setdefault(call.customer_id, {})
        if call.live:
            self.calls[call.id] = of_customer[call.id] = call
        else:
            self.calls.pop(call.id, None)
            of_customer.pop(call.id, None)
        _reindex(self._by_user, call.id, _users(before), _users(call) if call.live else set(), call)
        _reindex(self._by_queue, call.id, _queue(before), _queue(call) if call.live else set(), call)

    def state(self) -> Any:
        return dict(self.calls)

    def snapshot(self) -> list[Call]:
        return list(self.calls.values())

    def restore(self, kept: list[Call]) -> None:
        for call in kept:
            self._put(None, call)

    def get(self, call_id: int, customer_id: int) -> Call | None:
        return self._by_customer.get(customer_id, {}).get(call_id)

    def of_customer(self, customer_id: int, user_id: int | None = None) -> list[Call]:
        """A customer's live calls, or those a user of it takes part in, in id order."""
        if user_id is None:
            calls = self._by_customer.get(customer_id)
            return list(calls.values()) if calls else []
        taking_part = self._by_user.get((customer_id, user_id))
        return sorted(taking_part.values(), key=lambda c: c.id) if taking_part else []

    def of_queue(self, customer_id: int, queue_id: int) -> list[Call]:
        """The callers in a queue (waiting, ringing an agent or talking to one), in the order they joined."""
        calls = self._by_queue.get((customer_id, queue_id))
        return sorted(calls.values(), key=lambda c: (c.queued_at or 0.0, c.id)) if calls else []


Key = tuple[int, Any]


def _users(call: Call | None) -> set[Key]:
    """The users a call is indexed under: its own (the caller of an outbound call, whom an inbound one
    reached) and either side's."""
    if call is None:
        return set()
    return {(call.customer_id, user) for user in (call.user_id, call.src.user_id, call.dst.user_id)}


def _queue(call: Call | None) -> set[Key]:
    return set() if call is None or call.queue_id is None else {(call.customer_id, call.queue_id)}


def _reindex(index: dict[Any, dict[int, Call]], call_id: int, before: set[Key], after: set[Key], call: Call) -> None:
    """Move a call from the index keys it had to the ones it has now (none once it ended)."""
    for key in before - after:
        entries = index.get(key)
        if entries is not None:
            entries.pop(call_id, None)
            if not entries:
                del index[key]
    for key in after:
        index.setdefault(key, {})[call_id] = call


def live_call(call: Call, now: float) -> dict[str, Any]:
    """The spec's LiveCall, `state` as its name and times as epoch integers (real-platform.md), the
    tariff that prices it (`dst_rate`, `src_rate`, `min_charge`), with the labels and action link set on it."""
    src, dst = call.src, call.dst
    return {
        "id": call.id, "clid": call.clid, "connected_at": _epoch(call.connected_at), "context": call.context,
        "destination": CALL_DESTINATION.to_code(call.destination), "dst": dst.number,
        "dst_call_id": sip_call_id(call.id, "dst"), "dst_codec": dst.codec, "dst_connection": None,
        "dst_contact": dst.contact, "dst_id": dst.id, "dst_name": dst.name, "dst_rate": _rate(call, "dst"),
        "dst_ua": dst.ua, "duration": whole_seconds(call.placed_at, now), "min_charge": _minimum_charge(call),
        "monitor_state": MONITOR_STATES[call.recording], "parent_id": call.parent_id, "queue_state": standing(call),
        "referred_by": call.referred_by, "src": src.number, "src_call_id": sip_call_id(call.id, "src"),
        "src_codec": src.codec, "src_contact": src.contact, "src_id": src.id, "src_name": src.name,
        "src_rate": _rate(call, "src"), "src_ua": src.ua, "start_time": _epoch(call.placed_at), "state": call.state,
        "labels": list(call.labels), "action_url": call.action_url, "action_text": call.action_text,
    }  # fmt: skip


def _rate(call: Call, leg: str) -> float:
    """The rate per minute of the tariff that prices a leg (0 for a leg that is free)."""
    return shown(call.tariffs.get(leg, {}).get("per_minute", 0))


def _minimum_charge(call: Call) -> float:
    """The minimum charge of the tariff the call's CDR will show the rate of: its destination's."""
    main = call.tariffs.get("dst") or next(iter(call.tariffs.values()), {})
    return shown(main.get("minimum_charge", 0))


def _epoch(moment: float | None) -> int | None:
    return None if moment is None else int(moment)
