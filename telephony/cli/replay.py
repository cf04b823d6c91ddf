"""`telephony replay`: rebuild every projection from the log, or the state at a point into a new dir."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import audit, datadir, wiring
from ..config import Settings
from ..eventlog import pg_store, readahead
from ..projections import fresh, pg_rebuild
from .arguments import AddCommand, CliError, log_path, settings_of, time_bound


def add(add_command: AddCommand) -> None:
    replay = add_command("replay", help="rebuild projections, or the state at a point into a new dir")
    replay.add_argument("--until", help="position or UTC time")
    replay.add_argument("--out", help="new data dir to write the replayed state into")
    replay.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    until, until_time = _until(args.until)
    url = settings.eventlog.url
    if args.out:
        return _replay_out(settings, Path(args.out), until, until_time)
    if until is not None or until_time is not None:
        raise CliError("--until needs --out: the live data dir always holds the whole log")
    if url:
        return _replay_postgresql(url)
    projections = wiring.projection_set()
    readahead.in_background(log_path(settings))
    with datadir.exclusive(settings.data_dir):
        applied = fresh.rebuild_file(log_path(settings), projections)
    print(f"rebuilt {len(projections.all)} projections from {applied} events")
    return 0


def _replay_out(settings: Settings, out: Path, until: int | None, until_time: str | None) -> int:
    """The state at a point (or the whole log) into the new SQLite data dir `out`, from the data dir's log
    or from the PostgreSQL log (read in one snapshot; the servers on it go on)."""
    data_dir, url = settings.data_dir, settings.eventlog.url
    if url and out.resolve() == data_dir.resolve():
        raise CliError(f"--out {out}: give a new data dir, not the one the servers of the PostgreSQL log use")
    if not url:
        readahead.in_background(log_path(settings))
    try:
        with datadir.exclusive(out):
            copied = audit.replay_into(data_dir, out, wiring.projection_set(), until=until, until_time=until_time,
                                       log_url=url)  # fmt: skip
    except FileExistsError as exc:
        raise CliError(str(exc)) from None
    print(f"wrote {copied} events and their projections to {out}")
    return 0


def _replay_postgresql(url: str) -> int:
    """Rebuild every read model of the PostgreSQL log at `url` in one transaction, under the commit lock
    (the servers on it wait meanwhile)."""
    projections = wiring.projection_set(url)
    conn = pg_store.connect(url)
    try:
        applied = pg_rebuild.rebuild(conn, projections, projections.all)
    finally:
        conn.close()
    print(f"rebuilt {len(projections.all)} projections from {applied} events on PostgreSQL")
    return 0


def _until(text: str | None) -> tuple[int | None, str | None]:
    """`--until` as a position or as a UTC time."""
    if text is None:
        return None, None
    return (int(text), None) if text.isascii() and text.isdigit() else (None, time_bound(text, "--until"))
