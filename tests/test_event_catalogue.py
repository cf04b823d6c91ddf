"""The catalogue of event types (`telephony events`) is the audit contract: every event a log holds after
the whole range of traffic (calls down every routing path, billing, webhooks, SMS, faxes, chats, reports,
accounts, an import, deletes) is a type of it, listed with its fields, and reads back as its Struct,
whole; and so does every event of a log written before typed events. The records that traffic makes
are stored in the bytes the code before typed events stored them in (`golden/stored_records.txt`)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from telephony import wiring
from telephony.config import Settings
from telephony.documents import DocumentTable
from telephony.domain.events import EVENTS, RESOURCES, tag_of
from telephony.domain.events.base import data_of
from telephony.event_catalogue import as_text, described
from telephony.eventlog import store
from telephony.eventlog.connection import plain
from tests.eventlog.make_old_log import HERE, make
from tests.serving import clean_env, telephony


def stored_events(path: Path) -> list[tuple[int, str, int, bytes]]:
    """(position, type, schema, data made plain) of every event of a log."""
    conn = store.connect(path, readonly=True)
    try:
        rows = conn.execute("SELECT position, type, schema, data FROM events ORDER BY position").fetchall()
        return [(position, type_, schema, plain(conn, data)) for position, type_, schema, data in rows]
    finally:
        conn.close()


GOLDEN = Path(__file__).resolve().parent / "golden" / "stored_records.txt"
"""`stored_records` of the whole range of traffic (`make_old_log.make`), as the code before typed events
(main at 4c7c269, its records' bodies and changes `dict[str, Any]`) stored them."""
VOLATILE = re.compile(rb'("(?:password_hash|sip_password_sealed|secret_sealed)":)"[^"]*"|(127\.0\.0\.1:)[0-9]+')
"""What differs between two runs of the same traffic: a password's salted hash, a secret sealed with a
random nonce, a receiver's port."""


def stored_records(path: Path) -> list[str]:
    """`<type> <data>` of each event of a kind of record a log holds, by kind, in log order, with what
    differs between runs (`VOLATILE`) masked."""
    tags = {tag_of(cls) for events in RESOURCES.values() for cls in events.all}
    lines = [(type_, VOLATILE.sub(lambda m: m[1] + b'"*"' if m[1] else m[2] + b"*", data).decode())
             for _, type_, _, data in stored_events(path) if type_ in tags]  # fmt: skip
    return [f"{type_} {data}" for type_, data in sorted(lines, key=lambda line: line[0].partition(".")[0])]


def read_whole(type_: str, schema: int, data: bytes) -> list[str]:
    """What is wrong with reading stored data as its type: a value its types refuse, a field its Struct
    does not have (it would be lost), or a value that does not come back as stored (a field left out
    must be at its default), in the event and in the record it carries."""
    cls = EVENTS.types[type_]
    event = EVENTS.read(type_, schema, data)
    try:
        if schema == cls.schema:
            msgspec.json.decode(data, type=cls)
    except msgspec.ValidationError as exc:  # read only as stored (`Event.as_stored`): its types refuse it
        return [f"{type_}: {exc}"]
    return _whole(type_, cls, msgspec.json.decode(data), data_of(event))


def _whole(where: str, cls: Any, stored: dict[str, Any], again: dict[str, Any]) -> list[str]:
    fields = {info.encode_name: info for info in msgspec.structs.fields(cls)}
    problems = [f"{where}: {name} is no field of {cls.__name__}" for name in stored if name not in fields]
    for name, value in stored.items():
        if name not in fields:
            continue
        kept = again.get(name, _default(fields[name]))
        record = fields[name].type
        if isinstance(record, type) and issubclass(record, msgspec.Struct) and isinstance(value, dict):
            problems += _whole(f"{where}.{name}", record, value, kept)
        elif kept != value:
            problems.append(f"{where}: {name} reads back as {kept!r}, not {value!r}")
    return problems


def _default(info: msgspec.structs.FieldInfo) -> Any:
    if info.default_factory is not msgspec.NODEFAULT:
        return msgspec.to_builtins(info.default_factory())
    return None if info.default in (msgspec.NODEFAULT, msgspec.UNSET) else msgspec.to_builtins(info.default)


@pytest.fixture(scope="module")
def traffic(tmp_path_factory) -> Path:
    """A log of the whole range of traffic, written by today's code."""
    out = tmp_path_factory.mktemp("traffic")
    import asyncio

    asyncio.run(make(out))
    return out / "events.db"


def test_every_event_of_the_whole_range_of_traffic_is_in_the_catalogue_and_reads_back_whole(traffic):
    stored = stored_events(traffic)
    types = {type_ for _, type_, _, _ in stored}
    assert len(types) > 60 and types <= set(EVENTS.types), sorted(types - set(EVENTS.types))
    problems = [problem for _, type_, schema, data in stored for problem in read_whole(type_, schema, data)]
    assert problems == []


def test_the_records_of_the_whole_range_of_traffic_are_stored_in_the_bytes_of_before_typed_events(traffic):
    assert stored_records(traffic) == GOLDEN.read_text().splitlines()


def test_every_event_of_a_log_written_before_typed_events_reads_back_whole():
    stored = stored_events(HERE / "events.db")
    assert {type_ for _, type_, _, _ in stored} <= set(EVENTS.types)
    problems = [problem for _, type_, schema, data in stored for problem in read_whole(type_, schema, data)]
    assert problems == []


def test_telephony_events_json_lists_each_type_of_a_log_with_its_fields_and_their_docs(traffic, tmp_path):
    done = telephony("events", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = {entry["type"]: entry for entry in json.loads(done.stdout)["events"]}
    for _, type_, _, data in stored_events(traffic):
        fields = {field["name"]: field for field in listed[type_]["fields"]}
        assert set(msgspec.json.decode(data)) <= set(fields), type_
        assert listed[type_]["doc"] and listed[type_]["schema"] >= 1
    placed = {field["name"]: field for field in listed["call.placed"]["fields"]}
    assert placed["dst"]["type"] == "Party" and placed["dst"]["required"]
    assert placed["parent_id"] == {
        "name": "parent_id",
        "type": "int | None",
        "required": False,
        "doc": "The call this one goes on from (a transfer, an IVR that sent its caller on).",
    }
    values = {entry["name"]: entry for entry in json.loads(done.stdout)["values"]}
    assert {"Party", "Plan", "Call", "CallRecords", "Price", "Attachment"} <= set(values)


def test_telephony_events_json_documents_every_field_of_every_type_and_types_every_record(tmp_path):
    """Each field of each event type and of each value they hold has its type, whether it is required or
    its default, and its doc; a kind's `created` carries its record's Struct, its `updated` the record's
    changes, never a free-form `dict[str, Any]`."""
    done = telephony("events", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    contract = json.loads(done.stdout)
    entries = [*contract["events"], *contract["values"]]
    assert [f"{e.get('type') or e['name']}.{f['name']}" for e in entries for f in e["fields"] if not f["doc"]] == []
    assert all(e["doc"] and all(f["type"] and "required" in f for f in e["fields"]) for e in entries)
    listed = {entry["type"]: {field["name"]: field for field in entry["fields"]} for entry in contract["events"]}
    values = {entry["name"]: entry for entry in contract["values"]}
    for kind, events in RESOURCES.items():
        body, changes = listed[f"{kind}.created"]["body"]["type"], listed[f"{kind}.updated"]["changes"]["type"]
        assert (body, changes) == (events.record.__name__, events.changes.__name__), kind
        assert [f["name"] for f in values[changes]["fields"]] == [f["name"] for f in values[body]["fields"]], kind
        assert not any(f["required"] for f in values[changes]["fields"]), kind
        assert not any("dict[str, Any]" in f["type"] for tag in events.all for f in listed[tag_of(tag)].values())
    contact = {field["name"]: field for field in values["Contact"]["fields"]}
    assert contact["first_name"] == {"name": "first_name", "type": "str | None", "required": False,
                                     "doc": "The contact's first name."}  # fmt: skip
    assert {"name": "duration", "type": "int (0 to 86400) | None", "required": False,
            "doc": "Seconds from the call's start to its end."} in values["Cdr"]["fields"]  # fmt: skip


def test_the_text_catalogue_names_each_type_its_schema_and_its_fields():
    text = as_text(described())
    assert "call.ended (schema 1, CallEnded)" in text and "  final: Call | None = null" in text
    assert "contact.created (schema 1, ContactCreated)" in text


def test_a_reader_that_stops_early_ends_the_catalogue_quietly(tmp_path):
    """As `telephony events | head` does: here the reader is gone before the catalogue is written."""
    command = subprocess.Popen([sys.executable, "-m", "telephony", "events"], cwd=tmp_path, env=clean_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    assert command.stdout is not None and command.stderr is not None
    command.stdout.close()
    errors = command.stderr.read()
    assert (command.wait(timeout=60), errors) == (0, b"")


def test_every_document_kind_of_the_app_has_its_four_events_and_every_handled_type_is_in_the_catalogue():
    projections = wiring.projections()
    kinds = {p.kind for p in projections if isinstance(p, DocumentTable)}
    assert kinds <= set(RESOURCES)
    handled = {tag for p in projections for tag in p.tags}
    handled |= {tag for p in wiring.memory_projections(Settings()) for tag in p.tags or ()}
    assert handled <= set(EVENTS.types), sorted(handled - set(EVENTS.types))
    assert all(tag_of(cls) in EVENTS for events in RESOURCES.values() for cls in events.all)
