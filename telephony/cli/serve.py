"""`telephony serve`: the API server on its port, until SIGINT or SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import gc
import signal
import socket
import sys
from collections.abc import Callable

from .. import logs
from ..config import Settings
from ..eventlog import LOG_FILE, readahead
from .arguments import AddCommand, CliError, settings_of

SWITCH_INTERVAL = 0.0005
"""Seconds a thread holds the GIL while another waits for it (Python's default: 0.005). The loop lets
it go for every SQLite step and must then win it back from the writer's thread; with the default,
lists read while calls hang up waited up to 5 ms each time (10-15% fewer of them per second)."""


def add(add_command: AddCommand) -> None:
    serve = add_command("serve", help="run the API server")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    serve.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    logs.configure(settings.log.format, settings.log.level)
    sockets = _listen(settings.server.host, settings.server.port)
    sys.setswitchinterval(SWITCH_INTERVAL)
    with asyncio.Runner(loop_factory=event_loop_factory(settings.server.event_loop)) as runner:
        runner.run(_serve(settings, sockets))
    return 0


async def _serve(settings: Settings, sockets: list[socket.socket]) -> None:
    from aiohttp import web

    from ..app import create_app

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
