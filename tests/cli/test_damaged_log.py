"""A log whose last event was changed or damaged after it was written: `serve` refuses to chain onto it,
`log` prints the events before it, and every command says so in one line naming the position and the
way back (`verify` finds it; a backup, an export, or the state before it with `replay --until --out`)."""

from __future__ import annotations

import sqlite3

import pytest

from ..serving import free_port, logged_events
from .prepared import Prepared, run

pytestmark = pytest.mark.sqlite_only  # the data dir's SQLite file, edited


def damage(prepared: Prepared, how: str) -> int:
    """Damage the last event as `how` says; its position."""
    with sqlite3.connect(prepared.data_dir / "events.db") as conn:
        position, data = conn.execute("SELECT position, data FROM events ORDER BY position DESC LIMIT 1").fetchone()
        if how == "truncated":
            data = data[: len(data) // 2]
        else:  # a digit changed: still JSON, no longer what was written
            at = next(n for n, byte in enumerate(data) if chr(byte).isdigit())
            data = data[:at] + str((int(chr(data[at])) + 1) % 10).encode() + data[at + 1 :]
        conn.execute("UPDATE events SET data = ? WHERE position = ?", (data, position))
    return position


def one_line_naming(result, position: int) -> bool:
    line = result.stderr
    return line.count("\n") == 1 and f"the event at position {position} " in line and "telephony verify" in line


@pytest.fixture(params=["truncated", "a digit changed"])
def damaged(request, prepared) -> tuple[Prepared, int]:
    before = logged_events(prepared.data_dir, cwd=prepared.data_dir.parent)
    position = damage(prepared, request.param)
    assert before[-1]["position"] == position
    return prepared, position


def test_serve_refuses_a_log_whose_last_event_was_damaged_naming_its_position(damaged):
    prepared, position = damaged
    result = run(prepared, "serve", "--port", str(free_port()))
    assert result.returncode == 2, result.stdout + result.stderr
    assert one_line_naming(result, position), result.stderr
    with sqlite3.connect(prepared.data_dir / "events.db") as conn:
        assert conn.execute("SELECT max(position) FROM events").fetchone() == (position,), "nothing chained onto it"


def test_log_prints_the_events_before_the_damaged_one_then_names_it(damaged):
    prepared, position = damaged
    result = run(prepared, "log")
    assert result.returncode == 1
    assert [int(line.split()[0]) for line in result.stdout.splitlines()] == list(range(1, position))
    assert one_line_naming(result, position), result.stderr


def test_verify_names_its_position(damaged):
    prepared, position = damaged
    verified = run(prepared, "verify")
    assert verified.returncode == 1 and f"verify FAILED at position {position}:" in verified.stdout


@pytest.mark.parametrize("args", [["replay"], ["replay", "--out", "elsewhere"]], ids=["in place", "out"])
def test_replay_of_an_event_that_cannot_be_read_is_one_line_naming_it(prepared, args):
    position = damage(prepared, "truncated")
    result = run(prepared, *args)
    assert result.returncode == 2 and one_line_naming(result, position), result.stderr
    assert not (prepared.data_dir.parent / "elsewhere" / "events.db").exists(), "no half-made data dir"


def test_the_state_before_the_damaged_event_is_had_with_replay_until_out(damaged, tmp_path):
    prepared, position = damaged
    out = tmp_path / "restored"
    result = run(prepared, "replay", "--until", str(position - 1), "--out", str(out))
    assert result.returncode == 0, result.stderr
    restored = run(Prepared(out, [], 0, ""), "verify")
    assert restored.returncode == 0 and f"verify OK: {position - 1} events" in restored.stdout, restored.stdout
