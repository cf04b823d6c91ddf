"""Projections: rebuilding from the log gives exactly what incremental application gave."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from telephony.audit import Chain, Problem, split, verify_projections
from telephony.clock import Clock
from telephony.documents import DocumentTable
from telephony.documents.changes import Patch, Put
from telephony.domain.events import Catalogue, Event
from telephony.domain.events.base import Upcaster
from telephony.domain.events.resources import ResourceCreated
from telephony.eventlog import EventLog, Metadata, NewEvent, RecordedEvent
from telephony.eventlog import store as sqlite_store
from telephony.projections import Projection
from telephony.projections import Projections as AppProjections

from .counting import EnvelopeTrail, StreamCounts
from .things import MEMO, NOTE, TASK, THINGS, CallBilled, OtherThing, ThingHappened, ThingUndone


def Projections(projections: list[Projection], catalogue: Catalogue = THINGS) -> AppProjections:  # noqa: N802
    """The projections of these tests, reading their own events besides the app's."""
    return AppProjections(projections, catalogue)


async def log_of_one_event(data_dir) -> sqlite3.Connection:
    """A closed log of one `thing.happened` with `StreamCounts` applied, opened again."""
    log = await EventLog.open(data_dir, Projections([StreamCounts()]), Clock(), progress=False)
    await log.append([NewEvent(stream="a", event=ThingHappened(n=1))])
    await log.close()
    return sqlite_store.connect(data_dir / "events.db")


KINDS = (ThingHappened, ThingUndone, OtherThing)


def generated_log(seed: int, size: int) -> list[list[NewEvent]]:
    rng = random.Random(seed)
    batches = []
    for _ in range(size):
        batch = [
            NewEvent(stream=f"s-{rng.randrange(12)}", event=rng.choice(KINDS)(n=rng.randrange(-50, 50)))
            for _ in range(rng.randrange(1, 4))
        ]
        batches.append(batch)
    return batches


def snapshot(conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute("SELECT * FROM test_stream_counts ORDER BY stream").fetchall()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), size=st.integers(1, 60))
def test_rebuild_equals_incremental_application(tmp_path_factory, seed, size):
    data_dir = tmp_path_factory.mktemp("log")

    async def scenario():
        log = await EventLog.open(data_dir, Projections([StreamCounts()]), Clock(), progress=False)
        await asyncio.gather(*(log.append(batch) for batch in generated_log(seed, size)))
        await log.close()

    asyncio.run(scenario())
    conn = sqlite_store.connect(data_dir / "events.db")
    incremental = snapshot(conn)
    assert verify_projections(conn, Projections([StreamCounts()])) is None
    Projections([StreamCounts()]).rebuild(conn, progress=False)
    assert snapshot(conn) == incremental


async def test_a_changed_projection_version_is_rebuilt_at_start(tmp_path):
    conn = await log_of_one_event(tmp_path)
    conn.execute("DELETE FROM test_stream_counts")

    class StreamCountsV2(StreamCounts):
        version = 2

    assert Projections([StreamCountsV2()]).stale(conn)
    log = await EventLog.open(tmp_path, Projections([StreamCountsV2()]), Clock(), progress=False)
    await log.close()
    assert snapshot(conn) == [("a", 1, 1)]


async def test_verify_reports_a_projection_that_drifted_from_the_log(tmp_path):
    conn = await log_of_one_event(tmp_path)
    conn.execute("UPDATE test_stream_counts SET n = 99")
    problem = verify_projections(conn, Projections([StreamCounts()]))
    assert problem is not None and "test_stream_counts" in problem.what


async def test_a_rebuild_gives_the_envelope_to_projections_that_read_it(tmp_path):
    log = await EventLog.open(tmp_path, Projections([EnvelopeTrail()]), Clock(), progress=False)
    for n in range(5):
        await log.append([NewEvent(stream=f"s-{n % 2}", event=ThingHappened())], Metadata(request_id=f"r{n}"))
    await log.close()
    conn = sqlite_store.connect(tmp_path / "events.db")
    live = conn.execute("SELECT * FROM test_envelope_trail ORDER BY position").fetchall()
    assert [row[3] for row in live] == [f"r{n}" for n in range(5)] and all(row[5] for row in live)
    Projections([EnvelopeTrail()]).rebuild(conn, progress=False)
    assert conn.execute("SELECT * FROM test_envelope_trail ORDER BY position").fetchall() == live


def call_billed(event: RecordedEvent):
    """A CDR made by a call event, dated by when the event was recorded, naming its stream."""
    billed = event.event
    assert isinstance(billed, CallBilled)
    yield Put(billed.call_id, billed.customer_id, {"id": billed.call_id, "calldate": event.recorded_at,
                                                   "call": event.stream, "billsec": billed.billsec})  # fmt: skip
    if billed.billsec == 0:
        yield Patch(billed.call_id, {"disposition": "NO ANSWER"})


async def test_a_document_table_fed_by_other_events_sees_their_envelope_live_and_on_replay(tmp_path):
    cdrs = DocumentTable("cdr", feeds={CallBilled: call_billed})
    log = await EventLog.open(tmp_path, Projections([cdrs]), Clock.virtual(), progress=False)
    for call_id, billsec in ((7, 30), (8, 0)):
        billed = CallBilled(call_id=call_id, customer_id=100001, billsec=billsec)
        await log.append([NewEvent(stream=f"call-{call_id}", event=billed)])
    await log.close()
    conn = sqlite_store.connect(tmp_path / "events.db")
    live = conn.execute("SELECT id, customer_id, body FROM doc_cdr ORDER BY id").fetchall()
    bodies = [msgspec.json.decode(body) for _, _, body in live]
    assert [b["call"] for b in bodies] == ["call-7", "call-8"] and all(b["calldate"] for b in bodies)
    assert bodies[1]["disposition"] == "NO ANSWER"
    assert verify_projections(conn, Projections([DocumentTable("cdr", feeds={CallBilled: call_billed})])) is None


async def test_a_projection_that_reads_the_envelope_without_saying_so_sees_none_live_as_on_replay(tmp_path):
    class Careless(EnvelopeTrail):
        name = "careless"
        reads_envelope = False

    log = await EventLog.open(tmp_path, Projections([Careless()]), Clock(), progress=False)
    await log.append([NewEvent(stream="s-1", event=ThingHappened())], Metadata(request_id="r1"))
    await log.close()
    conn = sqlite_store.connect(tmp_path / "events.db")
    assert conn.execute("SELECT stream, request_id, recorded_at FROM test_envelope_trail").fetchall() == [
        ("", None, "")
    ]


async def test_a_changed_declaration_rebuilds_the_projection_on_an_existing_data_dir(tmp_path):
    log = await EventLog.open(tmp_path, Projections([DocumentTable("note")]), Clock(), progress=False)
    await log.append([NewEvent(stream="note-1", event=NOTE.created(id=1, customer_id=1, body={}))])
    await log.close()
    conn = sqlite_store.connect(tmp_path / "events.db")
    assert not Projections([DocumentTable("note")]).stale(conn)
    indexed = DocumentTable("note", indexed=("name",))
    assert Projections([indexed]).stale(conn) == [indexed]
    log = await EventLog.open(tmp_path, Projections([indexed]), Clock(), progress=False)
    await log.close()
    indexes = {row[1] for row in conn.execute("PRAGMA index_list(doc_note)")}
    assert "doc_note_name" in indexes and not Projections([indexed]).stale(conn)


async def documents_logged(tmp_path, events: list[Event]) -> sqlite3.Connection:
    """A log of these note events with their document table, opened."""
    log = await EventLog.open(tmp_path, Projections([DocumentTable("note")]), Clock(), progress=False)
    for event in events:
        await log.append([NewEvent(stream=f"note-{getattr(event, 'id', 0)}", event=event)])
    await log.close()
    return sqlite_store.connect(tmp_path / "events.db")


async def notes_logged(tmp_path, count: int) -> sqlite3.Connection:
    """A log of `count` notes made (ids 1..count) with their document table, opened."""
    made = [NOTE.created(id=id_, customer_id=1, body={"id": id_, "text": f"note {id_}"}) for id_ in range(1, count + 1)]
    return await documents_logged(tmp_path, made)


@pytest.mark.parametrize(
    ("tamper", "found"),
    [
        ("UPDATE doc_note SET body = json_set(body, '$.text', 'forged') WHERE id = 2", "missing from"),
        ("UPDATE doc_note SET customer_id = 7 WHERE id = 3", "missing from"),
        ("DELETE FROM doc_note WHERE id = 1", "missing from"),
        ("INSERT INTO doc_note (id, customer_id, body) VALUES (9, 1, '{}')", "unexpected in"),
    ],
)
async def test_verify_compares_a_table_with_an_integer_key_row_by_row(tmp_path, tamper, found):
    conn = await notes_logged(tmp_path, 3)
    assert verify_projections(conn, Projections([DocumentTable("note")])) is None
    conn.execute(tamper)
    problem = verify_projections(conn, Projections([DocumentTable("note")]))
    assert problem is not None and f"{found} the live table 'doc_note'" in problem.what


@pytest.mark.parametrize(
    ("change", "found"),
    [
        ("ALTER TABLE doc_note ADD COLUMN extra TEXT DEFAULT 'kept'", "has other columns than a fresh replay makes"),
        ("ALTER TABLE doc_note RENAME COLUMN body TO text", "has other columns than a fresh replay makes"),
        ("DROP TABLE doc_note", "is missing"),
    ],
)
async def test_verify_reports_a_live_table_of_another_shape(tmp_path, change, found):
    """A table an older version made differently (or none) is a difference, not rows compared in part."""
    conn = await notes_logged(tmp_path, 1)
    conn.execute(change)
    problem = verify_projections(conn, Projections([DocumentTable("note")]))
    assert problem is not None and f"the live table 'doc_note' {found}" in problem.what


async def test_verify_splits_the_rebuild_into_two_groups_of_like_weight(tmp_path):
    """Each projection weighs its events in the log times its cost; the heaviest go first to the lighter
    group, the second group starting with the work beside it; each group keeps the set's order."""
    log = await EventLog.open(tmp_path, Projections([]), Clock(), progress=False)
    for kind, count in ((NOTE, 6), (MEMO, 3), (TASK, 1)):
        for id_ in range(1, count + 1):
            made = kind.created(id=id_, customer_id=1, body={"id": id_, "text": f"{kind.kind} {id_}"})
            await log.append([NewEvent(stream=f"{kind.kind}-{id_}", event=made)])
    await log.close()
    conn = sqlite_store.connect(tmp_path / "events.db")
    task, note, memo = DocumentTable("task"), DocumentTable("note"), DocumentTable("memo", searched=("src",))
    unused = DocumentTable("fax")
    every = Projections([task, note, unused, memo])  # weights: 1, 6, 0 and 3 x 1.35
    for beside, first, second in (
        (0.0, [note], [task, unused, memo]),
        (5.0, [task, note, unused], [memo]),
        (20.0, [task, note, unused, memo], []),
    ):
        mine, theirs = split(conn, every, beside)
        assert (mine.all, theirs.all) == (first, second), beside
        assert mine.catalogue is every.catalogue and theirs.catalogue is every.catalogue


class PragmaWatch(StreamCounts):
    """Counts as `StreamCounts` and notes the connection's settings while it is fed."""

    seen: ClassVar[set[tuple[int, int]]] = set()

    def apply(self, conn: sqlite3.Connection, event: RecordedEvent) -> None:
        settings = tuple(conn.execute(f"PRAGMA {name}").fetchone()[0] for name in ("synchronous", "secure_delete"))
        self.seen.add(settings)
        super().apply(conn, event)


async def test_a_rebuild_drops_without_zeroing_pages_and_gives_the_settings_back(tmp_path):
    conn = await log_of_one_event(tmp_path)
    conn.execute("PRAGMA secure_delete=ON")
    Projections([PragmaWatch()]).rebuild(conn, progress=False)
    assert PragmaWatch.seen == {(1, 0)}  # NORMAL, off
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again
    assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
    assert snapshot(conn) == [("a", 1, 1)]


async def test_a_rebuild_never_makes_a_connection_safer_than_it_was(tmp_path):
    """A scratch database (verify's) that waits for no disk keeps not waiting during its rebuild."""
    conn = await log_of_one_event(tmp_path)
    conn.execute("PRAGMA synchronous=OFF")
    PragmaWatch.seen.clear()
    Projections([PragmaWatch()]).rebuild(conn, progress=False)
    assert PragmaWatch.seen == {(0, 0)}
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 0


def notes(conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute("SELECT id, customer_id, body FROM doc_note ORDER BY id").fetchall()


async def test_a_rebuild_stores_a_created_body_as_its_event_wrote_it(tmp_path, monkeypatch):
    """A rebuild keeps a made document's JSON as the event holds it (not decoded and encoded again):
    the rows equal the live ones, with an update, a delete and odd values among them, and without
    decoding a single made document."""
    body = {"id": 1, "text": 'Zürich "quoted" \\ \n', "n": 0.1, "big": 2**62, "none": None, "list": [1, {"a": []}]}
    conn = await documents_logged(tmp_path, [
        NOTE.created(id=1, customer_id=1, body=body),
        NOTE.created(id=2, customer_id=2, body={"id": 2, "text": "two"}),
        NOTE.updated(id=2, changes={"text": "changed", "extra": 5}),
        NOTE.created(id=3, customer_id=1, body={"id": 3}),
        NOTE.deleted(id=3),
    ])  # fmt: skip
    live = notes(conn)
    assert msgspec.json.decode(live[0][2]) == body and msgspec.json.decode(live[1][2])["text"] == "changed"
    decoded: list[str] = []
    for name in ("decode_row", "decode_content_row"):
        original = getattr(sqlite_store, name)
        monkeypatch.setattr(
            sqlite_store, name, lambda row, *args, _decode=original: decoded.append(row) or _decode(row, *args)
        )
    Projections([DocumentTable("note")]).rebuild(conn, progress=False)
    assert notes(conn) == live
    assert [row[1] for row in decoded] == ["note.updated", "note.deleted"]


class NoteCreatedLater(ResourceCreated, tag="note.created"):
    """`note.created` in a later shape: a note's `t` is in capitals; data of schema 1 is upcast."""

    body: dict[str, Any]
    schema: ClassVar[int] = 2
    upcasters: ClassVar[Mapping[int, Upcaster]] = {
        1: lambda d: {**d, "body": {**d["body"], "t": d["body"]["t"].upper()}}
    }  # noqa: E501


async def test_a_rebuild_decodes_a_created_event_an_upcaster_changes(tmp_path):
    """A type whose stored data an upcaster may change is never taken as written: the rebuild stores
    the upcast body."""
    conn = await documents_logged(tmp_path, [NOTE.created(id=1, customer_id=1, body={"id": 1, "t": "x"})])
    later = Catalogue([cls for cls in THINGS if cls is not NOTE.created]).with_types(NoteCreatedLater)
    Projections([DocumentTable("note")], later).rebuild(conn, progress=False)
    assert [msgspec.json.decode(row[2]) for row in notes(conn)] == [{"id": 1, "t": "X"}]


async def test_a_rebuild_checks_the_hash_chain_of_every_event_it_reads(tmp_path):
    """`verify` checks the chain on the rows its rebuild reads: all of them, also of types no projection
    of the rebuild handles; a broken one stops the rebuild and nothing is compared."""
    made = [NOTE.created(id=id_, customer_id=1, body={"id": id_}) for id_ in (1, 2, 3)]
    conn = await documents_logged(tmp_path, [made[0], ThingHappened(), *made[1:]])
    projections = Projections([DocumentTable("note")])
    seen: list[int] = []
    chain = Chain(conn, progress=seen.append)
    assert verify_projections(conn, projections, chain) is None and chain.problem is None
    assert len(seen) == sqlite_store.count(conn) == 4
    unhandled = conn.execute("SELECT position FROM events WHERE type = 'thing.happened'").fetchone()[0]
    conn.execute("UPDATE events SET recorded_at = '2000-01-01' WHERE position = ?", (unhandled,))
    conn.execute("DELETE FROM doc_note WHERE id = 3")
    chain = Chain(conn)
    assert verify_projections(conn, projections, chain) is None
    assert chain.problem == Problem(unhandled, "hash does not match the event's stored bytes")
    assert verify_projections(conn, projections) is not None  # the table's difference, unwatched
