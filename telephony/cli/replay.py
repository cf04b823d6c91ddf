"""`telephony replay`: rebuild every projection from the log, or the state at a point into a new dir."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import audit, datadir, wiring
from ..eventlog import pg_store, readahead, store
from ..projections import pg_rebuild
from .arguments import AddCommand, CliError, log_path, settings_of, time_bound


def add(add_command: AddCommand) -> None:
    replay = add_command("replay", help="rebuild projections, or the state at a point into a new dir")
    replay.add_argument("--until", help="position or UTC time")
    replay.add_argument("--out", help="new data dir to write the replayed state into")
    replay.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    until, until_time = _until(args.until)
    if settings.eventlog.url:
        return _replay_postgresql(settings.eventlog.url, args.out or until is not None or until_time is not None)
    projections = wiring.projection_set()
    readahead.in_background(log_path(settings))
    if args.out:
        try:
            with datadir.exclusive(Path(args.out)):
                copied = audit.replay_into(settings.data_dir, Path(args.out), projections, until=until,
                                           until_time=until_time)  # fmt: skip
        except FileExistsError as exc:
            raise CliError(str(exc)) from None
        print(f"wrote {copied} events and their projections to {args.out}")
        return 0
    if until is not None or until_time is not None:
        raise CliError("--until needs --out: the live data dir always holds the whole log")
    with datadir.exclusive(settings.data_dir):
        conn = store.connect(log_path(settings))
        applied = projections.rebuild(conn)
    print(f"rebuilt {len(projections.all)} projections from {applied} events")
    return 0


def _replay_postgresql(url: str, elsewhere: bool) -> int:
    """Rebuild every read model of the PostgreSQL log at `url` in one transaction, under the commit lock
    (the servers on it wait meanwhile). The state at a point goes into a new data dir only from SQLite."""
    if elsewhere:
        raise CliError("--out and --until replay a data dir's log; on PostgreSQL, replay rebuilds in place "
                       "(migrate a copy to replay it elsewhere)")  # fmt: skip
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
