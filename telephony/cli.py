"""The `telephony` command: serve, log, replay, verify, routes, import, export, events."""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import multiprocessing
import os
import signal
import socket
import sqlite3
import stat
import sys
import time
import urllib.request
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import msgspec
from tqdm import tqdm

from . import audit, datadir, event_catalogue, logs, wiring
from .config import ConfigError, Settings, load_settings
from .eventlog import LOG_FILE, readahead, store
from .eventlog.compression import plain
from .projections import Projections
from .projections.memory import MemoryProjections
from .redaction import redact

DEFAULT_CONFIG = "config.toml"


class CliError(Exception):
    """A command that cannot run as asked: one line on standard error, exit status 2."""


def _settings(args: argparse.Namespace) -> Settings:
    path = args.config or (DEFAULT_CONFIG if Path(DEFAULT_CONFIG).exists() else None)
    settings = load_settings(path)
    replace = msgspec.structs.replace
    if getattr(args, "host", None):
        settings = replace(settings, server=replace(settings.server, host=args.host))
    if getattr(args, "port", None) is not None:
        settings = replace(settings, server=replace(settings.server, port=args.port))
    if getattr(args, "data_dir", None):
        settings = replace(settings, storage=replace(settings.storage, data_dir=args.data_dir))
    return settings


def _log_path(settings: Settings) -> Path:
    path = settings.data_dir / LOG_FILE
    if not path.exists():
        raise CliError(f"no event log at {path}")
    return path


def _open_log(settings: Settings) -> sqlite3.Connection:
    return store.connect(_log_path(settings), readonly=True)


# --- serve ---------------------------------------------------------------------------------------


async def _serve(settings: Settings, sockets: list[socket.socket]) -> None:
    from aiohttp import web

    from .app import create_app

    app = create_app(settings, progress=True)
    runner = web.AppRunner(app, access_log_class=logs.AccessLogger, shutdown_timeout=10)
    try:
        await runner.setup()
    except BaseException:
        await runner.cleanup()  # what started before the failure (the log, its threads) closes again
        raise
    for sock in sockets:
        await web.SockSite(runner, sock).start()
    _settle_heap()
    readahead.in_background(settings.data_dir / LOG_FILE)  # lists right after a start find their pages cached
    host, port = runner.addresses[0][:2]
    loop = asyncio.get_running_loop()
    kind = type(loop).__module__.partition(".")[0]  # uvloop, or asyncio
    print(f"telephony listening on http://{host}:{port}/v1.2/{settings.api.service} ({kind} loop)", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    print("telephony shutting down", flush=True)
    await runner.cleanup()


def _settle_heap() -> None:
    """Collect once and move what start-up built (projections folded, routes, schemas) out of the
    cyclic collector's reach: a full collection then walks only what came later. Under the mixed
    load, full collections held every request in flight for 20-27 ms; now for a fraction of that."""
    gc.collect()
    gc.freeze()


def _listen(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address of `host` at `port`, before anything touches the data dir, so a
    busy port stops `serve` with nothing created."""
    sockets: list[socket.socket] = []
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(128)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sockets


SWITCH_INTERVAL = 0.0005
"""Seconds a thread holds the GIL while another waits for it (Python's default: 0.005). The loop lets
it go for every SQLite step and must then win it back from the writer's thread; with the default,
lists read while calls hang up waited up to 5 ms each time (10-15% fewer of them per second)."""


def cmd_serve(args: argparse.Namespace) -> int:
    settings = _settings(args)
    logs.configure(settings.log.format, settings.log.level)
    sockets = _listen(settings.server.host, settings.server.port)
    sys.setswitchinterval(SWITCH_INTERVAL)
    with asyncio.Runner(loop_factory=event_loop_factory(settings.server.event_loop)) as runner:
        runner.run(_serve(settings, sockets))
    return 0


def event_loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What makes the server's event loop (None: asyncio's own). uvloop's does its socket work in C
    (libuv) and sends without giving the GIL up, where asyncio's gives it up at every send: while
    calls hang up, each was a chance for the log's writer thread to keep the loop waiting."""
    if name != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:  # not built for this platform (Windows)
        return None
    return uvloop.new_event_loop


# --- log -----------------------------------------------------------------------------------------


def _time_bound(text: str | None, option: str) -> str | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace(" ", "T"))
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise CliError(f"{option} {text!r} is not a time: give YYYY-MM-DD or YYYY-MM-DD HH:MM:SS (UTC unless it "
                       "carries an offset such as +02:00)") from None  # fmt: skip
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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


def cmd_log(args: argparse.Namespace) -> int:
    conn = _open_log(_settings(args))
    filters = dict(
        stream=args.stream,
        types=args.type or None,
        since_time=_time_bound(args.since, "--since"),
        until_time=_time_bound(args.until, "--until"),
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


# --- replay and verify ---------------------------------------------------------------------------


def _until(text: str | None) -> tuple[int | None, str | None]:
    if text is None:
        return None, None
    return (int(text), None) if text.isascii() and text.isdigit() else (None, _time_bound(text, "--until"))


def cmd_replay(args: argparse.Namespace) -> int:
    settings = _settings(args)
    projections = wiring.projection_set()
    until, until_time = _until(args.until)
    readahead.in_background(_log_path(settings))
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
        conn = store.connect(_log_path(settings))
        applied = projections.rebuild(conn)
    print(f"rebuilt {len(projections.all)} projections from {applied} events")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    settings = _settings(args)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork")) as beside:
        beside.submit(os.getpid).result()  # the second process is forked before this one opens the log
        readahead.in_background(_log_path(settings))
        conn = _open_log(settings)
        total = store.count(conn)
        mine, theirs = audit.split(conn, wiring.projection_set(), beside=audit.CHAIN_COST * total)
        checked = beside.submit(_check_log, settings, [projection.name for projection in theirs.all])
        try:
            rebuilt = audit.verify_projections(conn, mine)
        except Exception:
            if checked.result()[0] is None:
                raise
            rebuilt = None  # an event the chain names could not be replayed: the chain's problem is the answer
        chain, rebuilt_beside, folded = checked.result()
    problem = chain or rebuilt or rebuilt_beside or folded
    if problem is None and args.server:
        problem = _verify_server(args.server, args.control_key or settings.control.key)
    if problem is not None:
        print(f"verify FAILED at {problem}")
        return 1
    live = "; the server's in-memory projections match a fresh fold" if args.server else ""
    print(f"verify OK: {total} events, hash chain intact, projections match a fresh replay{live}")
    return 0


def _check_log(settings: Settings, rebuilt: list[str]) -> tuple[audit.Problem | None, ...]:
    """The second process's share of `verify`: the hash chain's first problem, checked on the rows the
    rebuild of the projections named `rebuilt` reads, and when it holds, their comparison with that
    fresh replay, and a fold of the in-memory projections'. The first process rebuilds the other
    projections meanwhile (`audit.split`)."""
    conn = _open_log(settings)
    try:
        projections = wiring.projection_set()
        named = Projections([p for p in projections.all if p.name in rebuilt], projections.catalogue)
        chain = audit.Chain()
        compared = audit.verify_projections(conn, named, chain)
        if chain.problem is not None:
            return chain.problem, None, None
        return None, compared, audit.fold_memory(conn, MemoryProjections(wiring.memory_projections(settings)))
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


def cmd_routes(args: argparse.Namespace) -> int:
    service = _settings(args).api.service
    for line in wiring.route_listing(service):
        print(line)
    return 0


# --- import and export ---------------------------------------------------------------------------


def cmd_import(args: argparse.Namespace) -> int:
    from .accounts.service import open_sealer
    from .api.errors import BadRequest
    from .clock import Clock
    from .eventlog import EventLog, Metadata
    from .registry.importing import run_import
    from .security import SEAL_KEY_FILE, Sealer

    settings = _settings(args)
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
            log = await EventLog.open(settings.data_dir, wiring.projection_set(), Clock(), progress=True)
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
    from .registry.exporting import export

    conn = _open_log(_settings(args))
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


# --- parser --------------------------------------------------------------------------------------


CONFIG_HELP = "config file (default: ./config.toml when present)"
DATA_DIR_HELP = "data directory (overrides [storage] data_dir)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="telephony", description=__doc__)
    parser.add_argument("--config", help=CONFIG_HELP)
    parser.add_argument("--data-dir", help=DATA_DIR_HELP)
    anywhere = argparse.ArgumentParser(add_help=False)
    """The two global options, accepted after the command as well (`telephony replay --data-dir D`)."""
    anywhere.add_argument("--config", default=argparse.SUPPRESS, help=CONFIG_HELP)
    anywhere.add_argument("--data-dir", default=argparse.SUPPRESS, help=DATA_DIR_HELP)
    sub = parser.add_subparsers(dest="command", required=True)
    add_command = functools.partial(sub.add_parser, parents=[anywhere])

    serve = add_command("serve", help="run the API server")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.set_defaults(func=cmd_serve)

    show = add_command("log", help="print events")
    show.add_argument("--stream")
    show.add_argument("--type", action="append", help="event type (repeatable)")
    show.add_argument("--since", help="from this UTC time (YYYY-MM-DD[ HH:MM:SS])")
    show.add_argument("--until", help="up to this UTC time")
    show.add_argument("--json", action="store_true", help="JSON lines")
    show.add_argument("--follow", "-f", action="store_true", help="keep printing new events")
    show.set_defaults(func=cmd_log)

    replay = add_command("replay", help="rebuild projections, or the state at a point into a new dir")
    replay.add_argument("--until", help="position or UTC time")
    replay.add_argument("--out", help="new data dir to write the replayed state into")
    replay.set_defaults(func=cmd_replay)

    verify = add_command("verify", help="check the hash chain and replay equality")
    verify.add_argument("--server", help="URL of the server running on this data dir, to compare its in-memory "
                                         "projections too")  # fmt: skip
    verify.add_argument("--control-key", help="its control key (default: [control] key)")
    verify.set_defaults(func=cmd_verify)
    add_command("routes", help="list every route").set_defaults(func=cmd_routes)

    load = add_command("import", help="load records from JSON lines (server stopped)")
    load.add_argument("file")
    load.add_argument("--seal-key", action="append", metavar="PATH",
                      help="the secret.key (or the data dir) the file was exported from, to open its sealed "
                           "secrets (repeatable)")  # fmt: skip
    load.set_defaults(func=cmd_import)
    dump = add_command("export", help="write every record as JSON lines (the file is made 0600)")
    dump.add_argument("--out", help="file to write, mode 0600 (default: standard output)")
    dump.set_defaults(func=cmd_export)
    events = add_command("events", help="print the catalogue of event types: the audit contract")
    events.add_argument("--json", action="store_true", help="as JSON")
    events.set_defaults(func=event_catalogue.command)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CliError, ConfigError, datadir.DataDirUnusable) as exc:
        print(f"telephony: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
