"""In-memory projections: folded from the log at start, following commits, equal to a fresh fold."""

from __future__ import annotations

import asyncio
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from telephony.clock import Clock
from telephony.eventlog import EventLog, NewEvent, RecordedEvent
from telephony.projections import Projections
from telephony.projections.memory import MemoryProjection, MemoryProjections

from .things import THINGS, OtherThing, ThingHappened, ThingUndone


class Tally(MemoryProjection):
    """Events counted per stream, and the sum of their `n`, in memory."""

    name = "tally"
    handles = frozenset({ThingHappened, ThingUndone})

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.counts: dict[str, list[int]] = {}
        self.seen: list[int] = []

    def apply(self, event: RecordedEvent) -> None:
        self.seen.append(event.position)
        thing = event.event
        assert isinstance(thing, ThingHappened | ThingUndone)
        count = self.counts.setdefault(thing.stream, [0, 0])
        count[0] += 1 if isinstance(thing, ThingHappened) else -1
        count[1] += thing.n

    def state(self) -> dict[str, list[int]]:
        return self.counts


class Fragile(Tally):
    name = "fragile"

    def apply(self, event: RecordedEvent) -> None:
        if getattr(event.event, "n", None) == 13:
            raise ValueError("unlucky")
        super().apply(event)


def batch(rng: random.Random) -> list[NewEvent]:
    events = []
    for _ in range(rng.randrange(1, 4)):
        stream = f"s-{rng.randrange(6)}"
        kind = rng.choice([ThingHappened, ThingUndone, OtherThing])
        events.append(NewEvent(stream=stream, event=kind(stream=stream, n=rng.randrange(-9, 9))))
    return events


async def open_with(path, memory: MemoryProjections) -> EventLog:
    log = await EventLog.open(path, Projections([], THINGS), Clock.virtual(), progress=False)
    await memory.attach(log)
    log.follow_commits("memory", memory.follow)
    return log


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), size=st.integers(1, 40))
def test_a_fold_from_the_log_equals_the_projection_built_live(tmp_path_factory, seed, size):
    rng = random.Random(seed)
    path = tmp_path_factory.mktemp("log")

    async def scenario():
        memory = MemoryProjections([Tally()])
        log = await open_with(path, memory)
        appends = []
        for _ in range(size):
            events = batch(rng)
            if rng.random() < 0.2:  # a bulk load keeps no events: the follower reads the gap
                appends.append(log.transact(lambda _c, events=events: events, keep=False))
            else:
                appends.append(log.append(events))
        await asyncio.gather(*appends)
        live = memory[Tally]
        assert live.seen == sorted(set(live.seen))  # each event once, in order
        assert await memory.verify(log) is None
        await log.close()

        reopened = MemoryProjections([Tally()])
        log = await open_with(path, reopened)
        assert reopened[Tally].state() == live.state() and reopened[Tally].seen == live.seen
        await log.close()

    asyncio.run(scenario())


async def test_verify_catches_a_live_projection_that_differs_from_the_log(tmp_path):
    memory = MemoryProjections([Tally()])
    log = await open_with(tmp_path, memory)
    await log.append([NewEvent(stream="a", event=ThingHappened(stream="a", n=1))])
    memory[Tally].counts["a"][1] = 99
    difference = await memory.verify(log)
    await log.close()
    assert difference is not None and difference.projection == "tally" and difference.position == 1


async def test_a_projection_that_raises_stops_neither_the_writer_nor_the_others(tmp_path):
    memory = MemoryProjections([Fragile(), Tally()])
    log = await open_with(tmp_path, memory)
    for n in (12, 13, 14):
        await log.append([NewEvent(stream="a", event=ThingHappened(stream="a", n=n))])
    await log.close()
    assert memory[Tally].counts == {"a": [3, 39]}
    assert memory[Fragile].counts == {"a": [2, 26]}
    assert memory.failures == {"fragile": "ValueError at position 2"}


async def test_a_projection_without_history_starts_at_the_head_and_empty_after_a_gap(tmp_path):
    class Recent(Tally):
        name = "recent"
        history = False

    def happened(n: int) -> list[NewEvent]:
        return [NewEvent(stream="a", event=ThingHappened(stream="a", n=n))]

    first = MemoryProjections([Recent()])
    log = await open_with(tmp_path, first)
    await log.append(happened(1))
    await log.close()

    second = MemoryProjections([Recent()])
    log = await open_with(tmp_path, second)
    assert second[Recent].seen == []
    await log.append(happened(2))
    assert second[Recent].seen == [2]
    await log.transact(lambda _c: happened(3), keep=False)
    assert second[Recent].seen == [] and second.position == 3
    await log.close()
