"""`telephony verify`: the hash chain, and that a fresh replay gives the same projections (and, with
`--server`, the running server's in-memory ones)."""

from __future__ import annotations

import argparse
import multiprocessing
import os
import urllib.request
from concurrent.futures import ProcessPoolExecutor
from typing import Any, NamedTuple

import msgspec

from .. import audit, wiring
from ..config import Settings
from ..eventlog import readahead, store
from ..eventlog.pg_connection import Snapshot
from ..projections import Projections, pg_verify
from ..projections.memory import MemoryProjections
from .arguments import AddCommand, log_path, open_log, settings_of


def add(add_command: AddCommand) -> None:
    verify = add_command("verify", help="check the hash chain and replay equality")
    verify.add_argument("--server", help="URL of the server running on this data dir, to compare its in-memory "
                                         "projections too")  # fmt: skip
    verify.add_argument("--control-key", help="its control key (default: [control] key)")
    verify.set_defaults(func=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    if settings.eventlog.url:
        return _verify_postgresql(settings, args)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork")) as beside:
        beside.submit(os.getpid).result()  # the second process is forked before this one opens the log
        readahead.in_background(log_path(settings))
        conn = store.connect(log_path(settings), readonly=True)
        mine, theirs = audit.split(conn, wiring.projection_set(), beside=audit.CHAIN_COST * store.count(conn))
        checked = beside.submit(_check_log, settings, [projection.name for projection in theirs.all])
        try:
            rebuilt = audit.verify_projections(conn, mine)
        except Exception:
            if checked.result().chain is None:
                raise
            rebuilt = None  # an event the chain names could not be replayed: the chain's problem is the answer
        log = checked.result()
    problem = log.chain or rebuilt or log.rebuilt or log.folded
    if problem is None and args.server:
        problem = _verify_server(args.server, args.control_key or settings.control.key)
    if problem is not None:
        print(f"verify FAILED at {problem}")
        return 1
    live = "; the server's in-memory projections match a fresh fold" if args.server else ""
    print(f"verify OK: {log.position} events, hash chain intact (head {log.head.hex()}), projections match a "
          f"fresh replay{live}")  # fmt: skip
    return 0


def _verify_postgresql(settings: Settings, args: argparse.Namespace) -> int:
    """A PostgreSQL log, checked as a data dir's is: its hash chain and a fold of the in-memory
    projections (with every stored snapshot compared), read at one moment in one snapshot; then its read
    models against a fresh replay (`projections.pg_verify`); with `--server`, the server's in-memory
    projections."""
    url = settings.eventlog.url
    open_log(settings).close()  # the log's tables, made when missing
    built = pg_verify.built(url)
    read: Any = Snapshot(url)  # read with the SQLite store's functions
    try:
        total, head, problem = store.count(read), store.head(read)[1], audit.verify_chain(read)
        if problem is None:
            memory = MemoryProjections(wiring.memory_projections(settings))
            problem = audit.fold_memory(read, memory, kept=built)
    finally:
        read.close()
    if problem is None and args.server:
        problem = _verify_server(args.server, args.control_key or settings.control.key)
    if problem is not None:
        print(f"verify FAILED at {problem}")
        return 1
    live = "; the server's in-memory projections match a fresh fold" if args.server else ""
    if not built:
        print(f"verify OK: {total} events on PostgreSQL, hash chain intact (head {head.hex()}); no read models "
              f"yet (a start or `replay` makes them){live}")  # fmt: skip
        return 0
    if different := pg_verify.compare(url, wiring.projection_set(url)):
        print(f"verify FAILED: {different}")
        return 1
    print(f"verify OK: {total} events on PostgreSQL, hash chain intact (head {head.hex()}), read models match a "
          f"fresh replay{live}")  # fmt: skip
    return 0


class CheckedLog(NamedTuple):
    """The second process's findings: the hash chain's first problem, the comparison of the projections
    it rebuilt, the fold of the in-memory projections, and how far the chain was checked (its head)."""

    chain: audit.Problem | None
    rebuilt: audit.Problem | None
    folded: audit.Problem | None
    position: int
    head: bytes


def _check_log(settings: Settings, rebuilt: list[str]) -> CheckedLog:
    """The second process's share of `verify`: the hash chain, checked on the rows the rebuild of the
    projections named `rebuilt` reads, and when it holds, their comparison with that fresh replay, and
    a fold of the in-memory projections, each read in one snapshot. The first process rebuilds the
    other projections meanwhile (`audit.split`)."""
    conn = store.connect(log_path(settings), readonly=True)
    try:
        projections = wiring.projection_set()
        named = Projections([p for p in projections.all if p.name in rebuilt], projections.catalogue)
        chain = audit.Chain(conn)
        compared = audit.verify_projections(conn, named, chain)
        if chain.problem is not None:
            return CheckedLog(chain.problem, None, None, chain.position, chain.head)
        with store.reading(conn):
            folded = audit.fold_memory(conn, MemoryProjections(wiring.memory_projections(settings)))
        return CheckedLog(None, compared, folded, chain.position, chain.head)
    finally:
        conn.close()


def _verify_server(url: str, key: str) -> audit.Problem | None:
    """Ask the server running on this data dir to compare its in-memory projections with the log."""
    if not url.startswith(("http://", "https://")):
        return audit.Problem(None, f"--server must be an http:// or https:// URL, not {url!r}")
    request = urllib.request.Request(url.rstrip("/") + "/_telephony/verify", data=b"", method="POST",  # noqa: S310
                                     headers={"X-Control-Key": key})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
            answer = msgspec.json.decode(response.read())["data"]
    except (OSError, ValueError, KeyError) as exc:
        return audit.Problem(None, f"the server at {url} could not verify: {exc}")
    return audit.Problem(answer["position"], answer["problem"]) if answer["problem"] else None
