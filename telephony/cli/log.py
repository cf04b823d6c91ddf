"""`telephony log`: print the log's events (secrets redacted), filtered, and follow it; each checked against
the hash chain as it is printed, so a damaged event ends the output with one line naming it (exit 1)."""

from __future__ import annotations

import argparse
import sys
import time

import msgspec

from ..eventlog import LogDamaged, UnreadableEvent, damage, store
from ..eventlog.hashing import GENESIS, as_bytes
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
    last, previous = 0, (0, GENESIS)
    try:
        while True:
            for row in store.raw_rows(conn, after=last, **filters):
                last = row[0]
                chained_onto = previous[1] if previous[0] == last - 1 else damage.previous_hash(conn, last)
                print(_show(row, damage.checked(row, chained_onto, conn), args.json), flush=True)
                previous = (last, as_bytes(row[8]))
            if not args.follow:
                return 0
            time.sleep(0.5)
    except LogDamaged as exc:
        print(f"telephony: {exc}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, BrokenPipeError):
        return 0


def _show(row: tuple, content: bytes, as_json: bool) -> str:
    """A stored event as the log holds it (its data as stored, secrets masked); `content` is its data
    made plain."""
    position, stream, version, type_, schema, data, meta, recorded_at, digest = row
    try:
        shown = {"position": position, "stream": stream, "version": version, "type": type_, "schema": schema,
                 "data": redact(msgspec.json.decode(content)), "meta": msgspec.json.decode(meta),
                 "recorded_at": recorded_at, "hash": as_bytes(digest).hex()}  # fmt: skip
    except msgspec.DecodeError as exc:
        raise UnreadableEvent(position, f"cannot be read: {exc}") from None
    if as_json:
        return msgspec.json.encode(shown).decode()
    user_id = shown["meta"].get("user_id")
    actor = f" user={user_id}" if user_id is not None else ""
    return (
        f"{position:>8} {recorded_at} {stream}@{version} {type_}{actor} {msgspec.json.encode(shown['data']).decode()}"
    )
