"""Snapshots of in-memory projections: a start restores them and folds only what followed; one that
is not this projection's or this log's is never used."""

from __future__ import annotations

import sqlite3

import msgspec

from telephony.eventlog import NewEvent
from telephony.projections import snapshots
from telephony.projections.memory import MemoryProjections
from tests.eventlog.test_memory_projections import Tally, open_with
from tests.eventlog.things import ThingHappened


class KeptTally(Tally):
    name = "kept_tally"
    kept_as = dict[str, list[int]]

    def snapshot(self) -> dict[str, list[int]]:
        return self.counts

    def restore(self, kept: dict[str, list[int]]) -> None:
        self.counts = kept


class KeptTallyNext(KeptTally):
    """The same projection once its `apply` changed meaning."""

    version = 2


def happened(stream: str, n: int) -> list[NewEvent]:
    return [NewEvent(stream=stream, event=ThingHappened(stream=stream, n=n))]


async def run(path, memory: MemoryProjections, ns: list[int], every: int = snapshots.SAVE_EVERY) -> None:
    """Open the log the way the app does, append an event per n, and shut down (saving snapshots)."""
    log = await open_with(path, memory)
    keeper = snapshots.Keeper(memory, log.query, {}, every=every)
    log.follow_commits("snapshots", keeper.follow)
    for n in ns:
        await log.append(happened("a" if n % 2 else "b", n))
    await keeper.close()
    await log.close()


async def start(path, projection: KeptTally) -> tuple[MemoryProjections, dict[str, int]]:
    """Start as the app does: restore what snapshots are still good, fold the rest."""
    memory = MemoryProjections([projection])
    log = await open_with(path, MemoryProjections([]))
    kept = await log.query(lambda conn: snapshots.load(conn, memory.all))
    restored = snapshots.restore(memory, kept)
    await memory.attach(log, restored)
    await log.close()
    return memory, restored


async def test_a_start_restores_the_snapshot_taken_at_shutdown_and_folds_only_what_followed(tmp_path):
    first = MemoryProjections([KeptTally()])
    await run(tmp_path, first, [1, 2, 3])
    memory, restored = await start(tmp_path, KeptTally())
    assert restored == {"kept_tally": 3}
    assert memory[KeptTally].state() == first[KeptTally].state() == {"a": [2, 4], "b": [1, 2]}
    assert memory[KeptTally].seen == []  # nothing folded

    log = await open_with(tmp_path, MemoryProjections([]))
    await log.append(happened("a", 5))  # written while no snapshot was taken (a crash, say)
    await log.close()
    memory, restored = await start(tmp_path, KeptTally())
    assert restored == {"kept_tally": 3} and memory[KeptTally].seen == [4]
    assert memory[KeptTally].state() == {"a": [3, 9], "b": [1, 2]}


async def test_snapshots_are_saved_while_running_every_so_many_events(tmp_path):
    memory = MemoryProjections([KeptTally()])
    log = await open_with(tmp_path, memory)
    keeper = snapshots.Keeper(memory, log.query, {}, every=3)
    log.follow_commits("snapshots", keeper.follow)
    for n in range(1, 8):
        await log.append(happened("a", n))
    saved = await log.query(lambda conn: snapshots.load(conn, memory.all))
    await log.close()  # no keeper.close(): the process died
    assert [s.position for s in saved] == [6]
    assert msgspec.msgpack.decode(saved[0].state) == {"a": [6, 21]}


async def test_a_snapshot_of_another_version_is_left_unused(tmp_path):
    await run(tmp_path, MemoryProjections([KeptTally()]), [1, 2, 3])
    memory, restored = await start(tmp_path, KeptTallyNext())
    assert restored == {} and memory[KeptTallyNext].seen == [1, 2, 3]
    assert memory[KeptTallyNext].state() == {"a": [2, 4], "b": [1, 2]}


async def test_a_snapshot_of_another_log_is_left_unused(tmp_path):
    await run(tmp_path / "one", MemoryProjections([KeptTally()]), [1, 2, 3])
    await run(tmp_path / "two", MemoryProjections([]), [7, 8, 9, 10])  # another history, as long
    with sqlite3.connect(tmp_path / "two" / "events.db") as two:
        two.execute(snapshots.SCHEMA.format(bytes="BLOB"))
        two.execute("ATTACH DATABASE ? AS one", (str(tmp_path / "one" / "events.db"),))
        two.execute("INSERT INTO memory_snapshots SELECT * FROM one.memory_snapshots")
    memory, restored = await start(tmp_path / "two", KeptTally())
    assert restored == {}
    assert memory[KeptTally].state() == {"a": [2, 16], "b": [2, 18]}


async def test_a_snapshot_that_cannot_be_read_is_folded_from_the_log(tmp_path):
    await run(tmp_path, MemoryProjections([KeptTally()]), [1, 2, 3])
    with sqlite3.connect(tmp_path / "events.db") as conn:
        conn.execute("UPDATE memory_snapshots SET state = ?", (msgspec.msgpack.encode(["not", "counts"]),))
    memory, restored = await start(tmp_path, KeptTally())
    assert restored == {} and memory[KeptTally].seen == [1, 2, 3]
    assert memory[KeptTally].state() == {"a": [2, 4], "b": [1, 2]}


async def test_a_projection_that_failed_keeps_no_snapshot(tmp_path):
    memory = MemoryProjections([KeptTally()])
    memory.failures["kept_tally"] = "ValueError at position 2"
    await run(tmp_path, memory, [1, 2])
    memory, restored = await start(tmp_path, KeptTally())
    assert restored == {} and memory[KeptTally].seen == [1, 2]


async def test_a_snapshot_that_cannot_be_written_is_logged_and_costs_the_writes_nothing(tmp_path, caplog):
    memory = MemoryProjections([KeptTally()])
    log = await open_with(tmp_path, memory)

    async def refused(work) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    keeper = snapshots.Keeper(memory, refused, {}, every=2)
    log.follow_commits("snapshots", keeper.follow)
    for n in range(1, 5):
        await log.append(happened("a", n))
    await keeper.close()
    assert log.follower_failures == {} and memory[KeptTally].state() == {"a": [4, 10]}
    assert await log.query(lambda conn: snapshots.load(conn, memory.all)) == []
    await log.close()
    assert "saving snapshots of the in-memory projections" in caplog.text
