"""`telephony listen`: a server's call, SMS and delivery events, one line each as they happen, and each
forwarded, in order and signed as a webhook is, to a local URL (`testing.listener`)."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import signal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ... import webhooks
from ...cli.arguments import AddCommand, CliError, settings_of
from ...clock import wire_time
from ...config import Webhooks
from ...domain.errors import Invalid
from ...domain.events import tag_of
from ...domain.events.webhooks import DeliveryAttempted, DeliveryQueued
from ..listener import Event, Listener, Refused, State

QUEUED, ATTEMPTED = tag_of(DeliveryQueued), tag_of(DeliveryAttempted)


def add(add_command: AddCommand) -> None:
    listen = add_command("listen", help="print the server's events and forward them to a local URL")
    listen.add_argument("--server", help="the server's URL (default: http://127.0.0.1:<[server] port>)")
    listen.add_argument("--control-key", help="its control key (default: [control] key)")
    listen.add_argument("--forward-to", help="POST each event here, signed as a webhook (http:// to loopback only)")
    listen.add_argument("--events", help="names or patterns, separated by commas (default: every event)")
    listen.add_argument("--secret", help="the whsec_ signing secret (default: drawn once, kept in the state file)")
    listen.add_argument("--state", help="where the place forwarded up to is kept (default: under "
                                        "$XDG_STATE_HOME/telephony, one file per server and URL)")  # fmt: skip
    listen.set_defaults(func=cmd_listen)


def cmd_listen(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    server = (args.server or f"http://127.0.0.1:{settings.server.port}").rstrip("/")
    if urlsplit(server).scheme not in ("http", "https") or not urlsplit(server).hostname:
        raise CliError(f"--server must be an http:// or https:// URL, not {server!r}")
    if args.forward_to is not None:
        try:
            webhooks.allowed_url(args.forward_to, Webhooks(allow_http_loopback=True))
        except Invalid as exc:
            raise CliError(f"--forward-to {args.forward_to}: {exc.message}") from None
    if args.secret is not None and not args.secret.startswith("whsec_"):
        raise CliError("--secret must be a whsec_ signing secret")
    state = State(_state_path(args, server) if args.forward_to else None, args.secret)
    listener = Listener(server, args.control_key or settings.control.key, state, forward_to=args.forward_to,
                        names=args.events, say=_say, report=_report)  # fmt: skip
    try:
        asyncio.run(_run(listener))
    except Refused as exc:
        raise CliError(str(exc)) from None
    return 0


async def _run(listener: Listener) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, listener.stop)
    await listener.run()


def _state_path(args: argparse.Namespace, server: str) -> Path:
    if args.state:
        return Path(args.state)
    home = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    digest = hashlib.sha256(f"{server}\n{args.forward_to}".encode()).hexdigest()[:12]
    return home / "telephony" / f"listen-{digest}.json"


def _say(text: str) -> None:
    print(text, flush=True)


def _report(event: Event, outcome: str) -> None:
    """One line: position, time, name, what it is about, and what became of its forward."""
    data = json.loads(event.data)
    when = data.get("event_time") or (wire_time(data["at"]) if isinstance(data.get("at"), int | float) else "")
    told = f"  -> {outcome}" if outcome else ""
    print(f"{event.position:<6} {when:<19}  {event.name:<27} {_about(event.name, data)}{told}", flush=True)


def _about(name: str, data: dict[str, Any]) -> str:
    if "call_id" in data and "state" in data:
        return f"call {data['call_id']}  {data['src']} -> {data['dst']}  {data['state']}"
    if name == "sms.received":
        return f"sms {data['from_no']} -> {data['to_no']}"
    if name == QUEUED:
        return f"delivery {data['id']}  {data['event_name']} to {data['webhook']}"
    if name == ATTEMPTED:
        return f"delivery {data['id']}  attempt {data['attempt']}: {data['status'] or data['error']}, {data['outcome']}"
    if name.startswith("sms."):
        status = (data.get("body") or data.get("changes") or {}).get("status")
        return f"sms {data['id']}" + (f"  {status}" if status else "")
    return ""
