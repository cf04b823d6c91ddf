"""The floor calls are routed on: who is on a call, who waits in which queue, how agents served queues.

`QueueRecords` is an in-memory projection of call events: per queue and agent, the calls of the
queue the agent answered and when the last one ended (for `leastrecent`, `fewestcalls` and
`wrap_up_time`), and the agent each queue rang last (for `rrmemory`). `LiveFloor` answers the
routing's questions from it and the live calls.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ..domain.calls.call import Call, Party
from ..domain.events.calls import CallEnded, CallRouted
from ..eventlog import RecordedEvent
from ..projections.memory import MemoryProjection
from .live import LiveCalls


class QueueRecords(MemoryProjection):
    """Per (queue, agent): (calls answered, when the last ended); per queue: the agent rung last.
    Queue ids are never reused, so a closed customer's records are only never read again."""

    name = "queue_records"
    handles = frozenset({CallRouted, CallEnded})
    kept_as = tuple[list[tuple[int, int, int, float]], list[tuple[int, int]]]

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.served: dict[tuple[int, int], tuple[int, float]] = {}
        self.rung: dict[int, int] = {}

    def apply(self, event: RecordedEvent) -> None:
        match event.event:
            case CallRouted(queue_id=queue_id, dst=dst) if queue_id is not None and dst.user_id is not None:
                self.rung[queue_id] = dst.user_id
            case CallEnded(final=Call(queue_id=served_in, dst=Party(user_id=agent)) as final) as ended:
                if served_in is not None and agent is not None and final.dst_answered_at is not None:
                    calls = self.served.get((served_in, agent), (0, 0.0))[0]
                    self.served[(served_in, agent)] = (calls + 1, ended.at)

    def state(self) -> Any:
        return {"served": dict(self.served), "rung": dict(self.rung)}

    def snapshot(self) -> Any:
        served = [(queue, agent, calls, at) for (queue, agent), (calls, at) in self.served.items()]
        return served, list(self.rung.items())

    def restore(self, kept: Any) -> None:
        served, rung = kept
        self.served = {(queue, agent): (calls, at) for queue, agent, calls, at in served}
        self.rung = dict(rung)


@dataclass(frozen=True)
class LiveFloor:
    """The routing's view of the floor (`destinations.Floor`), from the in-memory projections."""

    live: LiveCalls
    records: QueueRecords
    seed: int

    def busy(self, call: Call, user_id: int) -> bool:
        return any(other.id != call.id for other in self.live.of_customer(call.customer_id, user_id))

    def queued(self, customer_id: int, queue_id: int) -> list[Call]:
        return self.live.of_queue(customer_id, queue_id)

    def served(self, queue_id: int, user_id: int) -> tuple[int, float | None]:
        found = self.records.served.get((queue_id, user_id))
        return (0, None) if found is None else found

    def last_rung(self, queue_id: int) -> int | None:
        return self.records.rung.get(queue_id)

    def shuffler(self, key: str) -> random.Random:
        return random.Random(f"{self.seed}:{key}")
