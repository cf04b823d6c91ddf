"""`telephony migrate`: copy a data dir's SQLite log into an empty PostgreSQL log and verify the copy
(its hash chain checked through, and its head hash equal to the source's)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from .. import audit, datadir
from ..eventlog import LOG_FILE, pg_store, store
from ..eventlog.migration import TargetNotEmpty, copy_log
from ..eventlog.pg_connection import is_postgresql
from .arguments import AddCommand, CliError


def add(add_command: AddCommand) -> None:
    migrate = add_command("migrate", help="copy a SQLite log into an empty PostgreSQL log and verify it")
    migrate.add_argument("--from", dest="source", required=True, metavar="sqlite:DIR",
                         help="the data dir whose log is copied (the server on it stopped)")  # fmt: skip
    migrate.add_argument("--to", dest="target", required=True, metavar="postgresql://...",
                         help="the PostgreSQL database to copy it into (its log must be empty)")  # fmt: skip
    migrate.set_defaults(func=cmd_migrate)


def cmd_migrate(args: argparse.Namespace) -> int:
    if not args.source.startswith("sqlite:"):
        raise CliError(f"--from {args.source!r}: give sqlite:DIR, the data dir of the log to copy")
    if not is_postgresql(args.target):
        raise CliError(f"--to {args.target!r}: give a postgresql:// URL")
    data_dir = Path(args.source.removeprefix("sqlite:"))
    if not (data_dir / LOG_FILE).exists():
        raise CliError(f"no event log at {data_dir / LOG_FILE}")
    with datadir.exclusive(data_dir):
        src = store.connect(data_dir / LOG_FILE, readonly=True)
        try:
            dst: Any = pg_store.connect(args.target)  # read with the SQLite store's functions
        except Exception as exc:
            raise CliError(f"--to: cannot connect ({exc})") from None
        try:
            with tqdm(total=store.count(src), desc="copying", unit="ev", file=sys.stderr, disable=None) as bar:
                copied = copy_log(src, dst, bar.update)
            problem = audit.verify_chain(dst)
            head = store.head(dst)
            same = store.head(src) == head
        except TargetNotEmpty as exc:
            raise CliError(str(exc)) from None
        finally:
            src.close()
            dst.close()
    if problem is not None or not same:
        print(f"migrate FAILED: the copy's {problem or 'head hash differs from the source'}")
        return 1
    print(f"migrated {copied} events; the copy's hash chain holds, its head equals the source's ({head[1].hex()})")
    return 0
