"""`telephony import` and `export`: records as JSON lines, between data dirs (the server stopped for
an import)."""

from __future__ import annotations

import argparse
import asyncio
import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from tqdm import tqdm

from .. import datadir, wiring
from .arguments import AddCommand, CliError, open_log, settings_of


def add(add_command: AddCommand) -> None:
    load = add_command("import", help="load records from JSON lines (server stopped)")
    load.add_argument("file")
    load.add_argument("--seal-key", action="append", metavar="PATH",
                      help="the secret.key (or the data dir) the file was exported from, to open its sealed "
                           "secrets (repeatable)")  # fmt: skip
    load.set_defaults(func=cmd_import)
    dump = add_command("export", help="write every record as JSON lines (the file is made 0600)")
    dump.add_argument("--out", help="file to write, mode 0600 (default: standard output)")
    dump.set_defaults(func=cmd_export)


def cmd_import(args: argparse.Namespace) -> int:
    from ..accounts.service import open_sealer
    from ..api.errors import BadRequest
    from ..clock import Clock
    from ..eventlog import EventLog, Metadata
    from ..eventlog.pg_log import PgEventLog
    from ..registry.importing import run_import
    from ..security import SEAL_KEY_FILE, Sealer

    settings = settings_of(args)
    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"no file to import at {path}")
    exporters = []
    for key in args.seal_key or []:
        key_path = Path(key) / SEAL_KEY_FILE if Path(key).is_dir() else Path(key)
        try:
            exporters.append(Sealer(key_path.read_bytes().strip()))
        except (OSError, ValueError) as exc:
            raise CliError(f"--seal-key {key}: not a readable seal key ({exc})") from None

    def lines():
        with path.open("rb") as source:
            yield from source

    async def run() -> int:
        with datadir.exclusive(settings.data_dir):
            url, projections = settings.eventlog.url, wiring.projection_set(settings.eventlog.url)
            log = await (PgEventLog.open_url(url, projections, Clock()) if url else
                         EventLog.open(settings.data_dir, projections, Clock(), progress=True))  # fmt: skip
            try:
                sealer = await open_sealer(settings.data_dir, log)
                with tqdm(total=sum(1 for _ in lines()), desc="importing", unit="rec", file=sys.stderr,
                          disable=None) as bar:  # fmt: skip
                    return await run_import(log, sealer, Clock(), lines,
                                            Metadata(source="import"), progress=bar.update,
                                            exporters=exporters)  # fmt: skip
            finally:
                await log.close()

    try:
        count = asyncio.run(run())
    except BadRequest as exc:
        print(exc.message, file=sys.stderr)
        for problem in exc.errors[1:]:
            print(problem.message, file=sys.stderr)
        return 1
    print(f"imported {count} records into {settings.data_dir}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from ..registry.exporting import export

    conn = open_log(settings_of(args))
    out = secret_file(Path(args.out)) if args.out else sys.stdout.buffer
    if not args.out and stat.S_ISREG(os.fstat(out.fileno()).st_mode):
        os.fchmod(out.fileno(), 0o600)  # a shell redirect: the file holds password hashes all the same
    try:
        for line in export(conn):
            out.write(line + b"\n")
    finally:
        if args.out:
            out.close()
    return 0


def secret_file(path: Path) -> BinaryIO:
    """`path` opened for writing, readable by its owner only (0600), however it existed before."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror}") from None
    os.fchmod(fd, 0o600)
    return os.fdopen(fd, "wb")
