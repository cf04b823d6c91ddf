"""`telephony serve`: the API server on its port, until SIGINT or SIGTERM (`--workers N`: N processes)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal
import socket
import sys
from collections.abc import Callable

import msgspec

from .. import demo, logs
from ..api import index
from ..config import Bootstrap, Settings
from ..eventlog import LOG_FILE, readahead
from ..output import say
from . import workers
from .arguments import AddCommand, CliError, settings_of

SWITCH_INTERVAL = 0.0005
"""Seconds a thread holds the GIL while another waits for it (Python's default: 0.005). The loop lets
it go for every SQLite step and must then win it back from the writer's thread; with the default,
lists read while calls hang up waited up to 5 ms each time (10-15% fewer of them per second)."""


SHUTDOWN_SECONDS = 3.0
"""How long a stop waits for the requests under way (a long clock move among them) before it cancels
them: with the rest of the shutdown, a SIGTERM ends the server within 5 s."""


def add(add_command: AddCommand) -> None:
    serve = add_command("serve", help="run the API server")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.add_argument("--demo", action="store_true", help="a generated company with history and live traffic")
    serve.add_argument("--seed", type=int, help=f"the demo's seed (default {demo.DEFAULT_SEED})")
    serve.add_argument("--rate", type=float, help=f"the demo's calls a minute (default {demo.DEFAULT_RATE:g})")
    serve.add_argument("--workers", type=int, default=1, help="server processes on the port (PostgreSQL only)")
    serve.add_argument("--access-log", action="store_true", help="one line per request ([log] access)")
    serve.add_argument("--log-format", choices=("text", "json"), help="log lines as text or JSON ([log] format)")
    serve.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)  # a worker of --workers
    serve.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    settings = _with_log_options(settings_of(args), args)
    workers.check(args, settings)
    logs.configure(settings.log.format, settings.log.level, settings.log.access)
    if args.workers > 1:
        return workers.run(args, settings, _listen(settings.server.host, settings.server.port, True, listen=False))
    sockets = _listen(settings.server.host, settings.server.port, args.reuse_port)
    shown = _demo_of(args, settings)
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        with asyncio.Runner(loop_factory=event_loop_factory(settings.server.event_loop)) as runner:
            runner.run(_serve(shown.settings if shown else settings, sockets, shown))
    finally:
        logs.close()
    return 0


def _with_log_options(settings: Settings, args: argparse.Namespace) -> Settings:
    """`settings` with `--access-log` and `--log-format` in force."""
    replace = msgspec.structs.replace
    log = replace(settings.log, access=settings.log.access or args.access_log,
                  format=args.log_format or settings.log.format)  # fmt: skip
    return replace(settings, log=log)


def _demo_of(args: argparse.Namespace, settings: Settings) -> demo.Demo | None:
    """The demo `--demo` asks for (its data dir checked), or None; `--seed` and `--rate` need `--demo`."""
    if not args.demo:
        if args.seed is not None or args.rate is not None:
            raise CliError("--seed and --rate are options of --demo")
        return None
    if args.rate is not None and not 0 < args.rate <= demo.MAX_RATE:
        raise CliError(f"--rate must be above 0 and at most {demo.MAX_RATE:g} calls a minute")
    return demo.prepare(settings, args.seed, demo.DEFAULT_RATE if args.rate is None else args.rate)


async def _serve(settings: Settings, sockets: list[socket.socket], shown: demo.Demo | None = None) -> None:
    from aiohttp import web

    from ..app import create_app

    if shown:
        app = create_app(settings, clock=shown.clock, entropy=shown.entropy, progress=True)
        app.cleanup_ctx.append(demo.context(shown, _base_url(sockets[0]), say))
    else:
        app = create_app(settings, progress=True)
    access = {"access_log_class": logs.AccessLogger} if settings.log.access else {"access_log": None}
    runner = web.AppRunner(app, shutdown_timeout=SHUTDOWN_SECONDS, **access)
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
    say(f"telephony listening on http://{host}:{port}/v1.2/{settings.api.service} ({kind} loop)")
    if not shown:  # a demo says its own logins and links
        for line in welcome(settings, _base_url(sockets[0])):
            say(line)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    say("telephony shutting down")
    await runner.cleanup()


def welcome(settings: Settings, base: str) -> list[str]:
    """What a newcomer needs after the first line: where the API, the dashboard and the docs are, and
    how to log in (the bootstrap user; its password is said only while it is the documented default)."""
    where = index.links(settings.api.service, base)
    bootstrap = settings.bootstrap
    default = bootstrap.admin_password == Bootstrap().admin_password
    password = f"password {bootstrap.admin_password!r}, the default: change it" if default else "its password"
    return [
        f"  API:        {where['api_v1_2']}  and  {where['api_v1_1']}",
        f"  dashboard:  {where['dashboard']}",
        f"  API docs:   {where['docs']}",
        f"  log in:     {bootstrap.admin_email} ({password} in [bootstrap] of the config file)",
    ]


def _base_url(sock: socket.socket) -> str:
    """Where this process reaches the server on `sock` (its loopback address when it listens on all)."""
    host, port = sock.getsockname()[:2]
    if sock.family == socket.AF_INET6:
        return f"http://[{'::1' if host == '::' else host}]:{port}"
    return f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{port}"  # noqa: S104 - read, not bound


def _settle_heap() -> None:
    """Collect once and move what start-up built (projections folded, routes, schemas) out of the
    cyclic collector's reach: a full collection then walks only what came later. Under the mixed
    load, full collections held every request in flight for 20-27 ms; now for a fraction of that."""
    gc.collect()
    gc.freeze()


def _listen(host: str, port: int, reuse_port: bool = False, listen: bool = True) -> list[socket.socket]:
    """Sockets bound to every address of `host` at `port`, before anything touches the data dir, so a
    busy port stops `serve` with nothing created; `reuse_port` shares the port with the other workers
    (`listen` False: the parent of workers only holds the port)."""
    sockets: list[socket.socket] = []
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if reuse_port:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            if listen:
                sock.listen(128)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sockets


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
