"""`telephony log`: print the log's events (secrets redacted), filtered, and follow it."""

from __future__ import annotations

import argparse
import time

import msgspec

from ..eventlog import store
from ..eventlog.compression import plain
from ..redaction import redact
from .arguments import AddCommand, open_log, settings_of, time_bound


def add(add_command: AddCommand) -> None:
    show = add_command("log", help="print events")
    show.add_argument("--stream")
    show.add_argument("--type", action="append", help="event type (repeatable)")
    show.add_argument("--since", help="from this UTC time (YYYY-MM-DD[ HH:MM:SS])")
    show.add_argument("--until", help="up to this UTC time")
    show.add_argument("--json", action="store_true", help="JSON lines")
    show.add_argument("--follow", "-f", action="store_true", help="keep printing new events")
    show.set_defaults(func=cmd_log)


def cmd_log(args: argparse.Namespace) -> int:
    conn = open_log(settings_of(args))
    filters = dict(
        stream=args.stream,
        types=args.type or None,
        since_time=time_bound(args.since, "--since"),
        until_time=time_bound(args.until, "--until"),
    )
    last = 0
    try:
        while True:
            for row in store.raw_rows(conn, after=last, **filters):
                last = row[0]
                print(_show(row, args.json), flush=True)
            if not args.follow:
                return 0
            time.sleep(0.5)
    except (KeyboardInterrupt, BrokenPipeError):
        return 0


def _show(row: tuple, as_json: bool) -> str:
    """A stored event as the log holds it (its data as stored, secrets masked)."""
    position, stream, version, type_, schema, data, meta, recorded_at, digest = row
    shown = {"position": position, "stream": stream, "version": version, "type": type_, "schema": schema,
             "data": redact(msgspec.json.decode(plain(data))), "meta": msgspec.json.decode(meta),
             "recorded_at": recorded_at, "hash": digest.hex()}  # fmt: skip
    if as_json:
        return msgspec.json.encode(shown).decode()
    user_id = shown["meta"].get("user_id")
    actor = f" user={user_id}" if user_id is not None else ""
    return (
        f"{position:>8} {recorded_at} {stream}@{version} {type_}{actor} {msgspec.json.encode(shown['data']).decode()}"
    )
