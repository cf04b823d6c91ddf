"""A full rebuild writes a new database file and moves it over the data dir's only when it is whole."""

from __future__ import annotations

import sqlite3
import stat
from contextlib import closing

import pytest

from telephony import wiring
from telephony.datadir import DataDirBusy
from telephony.projections import fresh

from ..cli.prepared import Prepared, prepare, run, tamper


@pytest.fixture
async def prepared(aiohttp_client, settings, clock) -> Prepared:
    """A data dir written by the real app, with API tokens (as the commands' tests have it)."""
    return await prepare(aiohttp_client, settings, clock)


pytestmark = pytest.mark.sqlite_only  # the rebuild of the data dir's SQLite file

KEPT = ("events", "event_dictionaries", "outbox", "reactor_positions", "memory_snapshots")


def _rows(prepared: Prepared, tables) -> dict[str, list[tuple]]:
    with closing(sqlite3.connect(prepared.data_dir / "events.db")) as conn:
        names = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {table: conn.execute(f'SELECT * FROM "{table}" ORDER BY 1').fetchall() for table in tables
                if table in names}  # fmt: skip


def test_replay_keeps_the_log_and_every_table_no_projection_owns_and_leaves_one_file(prepared):
    before = _rows(prepared, KEPT)
    assert before["events"], "the app wrote events"
    tamper(prepared, "DELETE FROM tokens WHERE name = 'late'")
    result = run(prepared, "replay")
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in prepared.data_dir.glob("events.db*")) == ["events.db"]
    assert _rows(prepared, KEPT) == before
    assert run(prepared, "verify").returncode == 0
    assert stat.S_IMODE((prepared.data_dir / "events.db").stat().st_mode) == 0o600
    with closing(sqlite3.connect(prepared.data_dir / "events.db")) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_rebuild_that_fails_half_way_leaves_the_old_file_and_its_read_models(prepared):
    tamper(prepared, "DELETE FROM tokens WHERE name = 'late'")
    before = _rows(prepared, ("tokens", "events"))
    projections = wiring.projection_set()
    failing = next(p for p in projections.all if "tokens" in p.tables)

    def settle(conn):
        raise RuntimeError("the disk is full")

    failing.settle = settle  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="the disk is full"):
        fresh.rebuild_file(prepared.data_dir / "events.db", projections, progress=False)
    assert _rows(prepared, ("tokens", "events")) == before
    assert not (prepared.data_dir / "events.db.rebuild").exists()
    assert run(prepared, "verify").returncode == 1, "the lost row is still lost"
    assert run(prepared, "replay").returncode == 0
    assert run(prepared, "verify").returncode == 0


def test_a_replay_while_another_process_reads_an_unfolded_wal_refuses_and_changes_nothing(prepared):
    reader = sqlite3.connect(prepared.data_dir / "events.db", isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM events").fetchone()  # holds its snapshot of the log
        tamper(prepared, "DELETE FROM tokens WHERE name = 'late'")  # written to the WAL, not yet folded in
        with pytest.raises(DataDirBusy, match="being read by another process"):
            fresh.rebuild_file(prepared.data_dir / "events.db", wiring.projection_set(), progress=False)
        assert not (prepared.data_dir / "events.db.rebuild").exists()
    finally:
        reader.close()
    assert run(prepared, "verify").returncode == 1, "the deleted row is still deleted: the WAL was kept"
    assert run(prepared, "replay").returncode == 0
    assert run(prepared, "verify").returncode == 0
