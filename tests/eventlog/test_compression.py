"""Event data compressed with dictionaries the log trains on its own events: read back unchanged,
hashed as plain JSON, carried by copies of the log, and damage to either is found by the chain. Each
connection carries its log's dictionaries: a connection opened here knows only what its log holds, as
one in a new process would."""

from __future__ import annotations

import random
import sqlite3
import threading

import pytest
import zstandard

from telephony.audit import replay_into, verify_chain
from telephony.domain.events import EVENTS, RESOURCES
from telephony.eventlog import LOG_FILE, NewEvent, compression
from telephony.eventlog import store as sqlite_store
from telephony.projections import Projections

from .counting import StreamCounts
from .stores import open_log
from .things import THINGS, Tick


def cdr_like(rng: random.Random, n: int) -> NewEvent:
    body = {
        "id": n,
        "src": f"+4477009{rng.randrange(10**5):05d}",
        "dst": f"+44203{rng.randrange(10**7):07d}",
        "disposition": rng.choice(["CONNECTED", "NO ANSWER", "BUSY"]),
        "billsec": rng.randrange(600),
        "src_name": None,
        "info": None,
    }
    return NewEvent(stream=f"cdr-{n}", event=RESOURCES["cdr"].made(n, 1, body))


def stored(data_dir) -> list[tuple[int, bytes]]:
    with sqlite3.connect(data_dir / LOG_FILE) as conn:
        return conn.execute("SELECT position, data FROM events ORDER BY position").fetchall()


def dictionaries(data_dir) -> list[int]:
    with sqlite3.connect(data_dir / LOG_FILE) as conn:
        return [row[0] for row in conn.execute("SELECT trained_at FROM event_dictionaries ORDER BY id")]


@pytest.fixture
def small_thresholds(monkeypatch):
    """Train at 200 events and again at 800, so a test log sees two dictionaries."""
    monkeypatch.setattr(compression, "FIRST_TRAINING", 200)
    monkeypatch.setattr(compression, "GROWTH", 4)


async def append_all(data_dir, events: list[NewEvent]) -> None:
    log = await open_log(data_dir)
    try:
        for start in range(0, len(events), 50):
            await log.append(events[start : start + 50])
    finally:
        await log.close()


async def test_data_is_stored_compressed_once_the_log_has_trained_and_reads_back_unchanged(tmp_path, small_thresholds):
    rng = random.Random(17)
    events = [cdr_like(rng, n) for n in range(1, 1001)]
    await append_all(tmp_path, events)
    assert dictionaries(tmp_path) == [200, 800]
    rows = stored(tmp_path)
    plain_json = [data for position, data in rows if position <= 200]
    packed = [data for position, data in rows if position > 200]
    assert not any(data.startswith(compression.MAGIC) for data in plain_json)
    assert all(data.startswith(compression.MAGIC) for data in packed)
    average = sum(map(len, packed)) / len(packed)
    assert average < 0.5 * sum(map(len, plain_json)) / len(plain_json)

    log = await open_log(tmp_path)
    try:
        read = await log.read()
    finally:
        await log.close()
    assert [e.event for e in read] == [e.event for e in events]
    conn = sqlite_store.connect(tmp_path / LOG_FILE, readonly=True)
    try:
        assert verify_chain(conn) is None
    finally:
        conn.close()


async def test_a_reopened_log_goes_on_with_its_latest_dictionary(tmp_path, small_thresholds):
    rng = random.Random(5)
    await append_all(tmp_path, [cdr_like(rng, n) for n in range(1, 301)])
    await append_all(tmp_path, [cdr_like(rng, n) for n in range(301, 401)])
    assert dictionaries(tmp_path) == [200]
    assert all(data.startswith(compression.MAGIC) for position, data in stored(tmp_path) if position > 300)


async def test_data_that_would_not_shrink_stays_plain(tmp_path, small_thresholds):
    rng = random.Random(3)
    tiny = [NewEvent(stream="t", event=Tick(n=n)) for n in range(5)]
    await append_all(tmp_path, [cdr_like(rng, n) for n in range(1, 251)] + tiny)
    assert [data for _, data in stored(tmp_path)[-5:]] == [b'{"n":%d}' % n for n in range(5)]


async def test_a_copy_of_the_log_carries_its_dictionaries(tmp_path, small_thresholds):
    rng = random.Random(11)
    events = [cdr_like(rng, n) for n in range(1, 401)]
    await append_all(tmp_path / "data", events)
    replay_into(tmp_path / "data", tmp_path / "copy", Projections([StreamCounts()], THINGS), progress=False)
    assert dictionaries(tmp_path / "copy") == [200]
    log = await open_log(tmp_path / "copy")
    try:
        assert [e.event for e in await log.read()] == [e.event for e in events]
    finally:
        await log.close()


@pytest.mark.parametrize("damage", ["frame", "dictionary"])
async def test_damage_to_compressed_data_or_its_dictionary_is_found_by_the_chain(tmp_path, small_thresholds, damage):
    rng = random.Random(23)
    await append_all(tmp_path, [cdr_like(rng, n) for n in range(1, 301)])
    with sqlite3.connect(tmp_path / LOG_FILE) as conn:
        if damage == "frame":
            (data,) = conn.execute("SELECT data FROM events WHERE position = 250").fetchone()
            flipped = data[:-3] + bytes([data[-3] ^ 0x20]) + data[-2:]
            conn.execute("UPDATE events SET data = ? WHERE position = 250", (flipped,))
        else:
            (content,) = conn.execute("SELECT content FROM event_dictionaries").fetchone()
            middle = len(content) // 2
            broken = content[:middle] + bytes(64) + content[middle + 64 :]
            conn.execute("UPDATE event_dictionaries SET content = ?", (broken,))
    conn = sqlite_store.connect(tmp_path / LOG_FILE, readonly=True)
    try:
        problem = verify_chain(conn)
    finally:
        conn.close()
    assert problem is not None
    if damage == "frame":
        assert problem.position == 250
    else:  # the first event that needed the damaged part of the dictionary
        assert 200 < problem.position <= 300


async def test_a_dictionary_trained_in_a_request_that_fails_goes_with_its_events(tmp_path, small_thresholds):
    rng = random.Random(29)
    events = [cdr_like(rng, n) for n in range(1, 241)]
    log = await open_log(tmp_path)
    try:
        await log.append(events[:190])

        def failing(_conn):
            yield from events[190:230]
            raise ValueError("rule broken")

        with pytest.raises(ValueError):
            await log.transact(failing)
        assert dictionaries(tmp_path) == []
        await log.append(events[190:])
        read = await log.read()
    finally:
        await log.close()
    assert dictionaries(tmp_path) == [200]
    assert [e.event for e in read] == [e.event for e in events]
    assert all(data.startswith(compression.MAGIC) for position, data in stored(tmp_path) if position > 200)


def test_threads_read_compressed_data_at_the_same_time(tmp_path, small_thresholds):
    """The writer's thread, the loop's and the readers' decompress at once with a log's dictionaries: a
    decompressor is lent to one of them at a time."""
    rng = random.Random(31)
    originals = [EVENTS.written(cdr_like(rng, n).event)[2] for n in range(1, 3001)]
    dictionary = zstandard.train_dictionary(compression.DICTIONARY_BYTES, originals[:1000])
    known = compression.Dictionaries()
    known.register(dictionary.as_bytes())
    packer = zstandard.ZstdCompressor(dict_data=dictionary, level=compression.LEVEL)
    frames = [packer.compress(original) for original in originals]
    wrong: list[int] = []

    def read_all(offset: int) -> None:
        for _ in range(3):
            for i in range(len(frames)):
                n = (i + offset) % len(frames)
                try:
                    if known.plain(frames[n]) != originals[n]:
                        wrong.append(n)
                except compression.UnreadableData:
                    wrong.append(n)

    threads = [threading.Thread(target=read_all, args=(offset,)) for offset in (0, 777, 1555, 2333)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


async def test_a_reader_connected_before_a_dictionary_was_trained_reads_what_it_compresses(tmp_path, small_thresholds):
    rng = random.Random(37)
    events = [cdr_like(rng, n) for n in range(1, 301)]
    await append_all(tmp_path, events[:50])
    reader = sqlite_store.connect(tmp_path / LOG_FILE, readonly=True)  # as another process would
    await append_all(tmp_path, events[50:])
    assert [e.event for e in sqlite_store.read_events(reader)] == [e.event for e in events]
    assert verify_chain(reader) is None


async def test_a_copy_up_to_a_point_takes_only_the_dictionaries_its_events_need(tmp_path, small_thresholds):
    rng = random.Random(41)
    await append_all(tmp_path / "data", [cdr_like(rng, n) for n in range(1, 1001)])
    for until, kept in ((150, []), (500, [200]), (1000, [200, 800])):
        out = tmp_path / f"until-{until}"
        replay_into(tmp_path / "data", out, Projections([StreamCounts()], THINGS), until=until, progress=False)
        assert dictionaries(out) == kept


async def test_a_dictionary_that_cannot_be_trained_never_fails_a_write(tmp_path, small_thresholds, monkeypatch):
    def unreadable(_conn, _dictionaries):
        raise compression.UnreadableData("a damaged sample")

    rng = random.Random(43)
    events = [cdr_like(rng, n) for n in range(1, 901)]
    log = await open_log(tmp_path)
    try:
        with monkeypatch.context() as patched:
            patched.setattr(compression, "_samples", unreadable)
            for start in range(0, 300, 50):
                await log.append(events[start : start + 50])
        assert dictionaries(tmp_path) == []
        for start in range(300, 900, 50):  # tried again once the log has grown fourfold
            await log.append(events[start : start + 50])
        assert [e.event for e in await log.read()] == [e.event for e in events]
    finally:
        await log.close()
    assert dictionaries(tmp_path) == [800]
