"""Makes `tests/eventlog/old_log/`: a data dir written by the code before typed events (main at 4f8c797).

`python -m tests.eventlog.make_old_log` drives a broad mix of traffic through the real app over HTTP
(`old_log_traffic.py`: calls of every routing kind, billing, webhooks, SMS, faxes, chats, reports,
accounts, an import, deletes and clears), on a virtual clock, then keeps the data dir's log and
keys, and the answers a few endpoints gave (`answers.json`). `test_old_log.py` opens a copy with
today's code: the log must load, replay and verify, and the endpoints must answer as they did. The
fixture was made once, by the old code; the script is kept to say what it holds (and to make another
from an old checkout).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import ssl
import sys
import tempfile
from pathlib import Path
from typing import Any

import trustme
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from telephony.app import create_app
from telephony.clock import Clock

from .old_log_driver import START, Driver, Receiver, settings
from .old_log_traffic import drive

HERE = Path(__file__).resolve().parent / "old_log"
KEPT = ("events.db", "secret.key")
LOG_TABLES = ("events", "event_dictionaries")
"""The data dir's files the fixture keeps: the log and the keys it was written with."""
ANSWERED = (
    "/cdrs?limit=5000&sort=id", "/transactions?limit=5000&sort=id", "/users?limit=5000&sort=id",
    "/contacts?limit=5000&sort=id", "/conversations?limit=5000&sort=id", "/sms?limit=5000&sort=id",
    "/faxes?limit=5000", "/voicemessages?limit=5000&sort=id", "/monitors?limit=5000&sort=id",
    "/webcalls?limit=5000", "/msdrs?limit=5000&sort=id", "/queues", "/ivrs", "/ringgroups", "/conferences",
    "/reportschedules", "/chats?limit=5000", "/calllabels", "/routingrules", "/vmannouncements", "/me",
)  # fmt: skip
"""The API paths whose answers the fixture records (as the bootstrap admin)."""
OPERATOR_ANSWERED = ("/_telephony/webhooks", "/_telephony/webhooks/crm/deliveries?sort=id&limit=5000",
                     "/_telephony/webhooks/dead/deliveries?sort=id&limit=5000")  # fmt: skip


async def record_answers(d: Driver) -> dict[str, Any]:
    d.token = await d.login()
    seen = {path: await d.call("GET", path) for path in ANSWERED}
    seen.update({path: await d.call("GET", path, headers=d.auth) for path in OPERATOR_ANSWERED})
    return seen


def only_the_log(path: Path) -> None:
    """Drop the read models (a start rebuilds them from the log): the fixture keeps what is stored for good."""
    conn = sqlite3.connect(path, isolation_level=None)
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for name in tables:
        if name not in LOG_TABLES and not name.endswith(("_data", "_idx", "_config", "_docsize", "_content")):
            conn.execute(f'DROP TABLE IF EXISTS "{name}"')
    conn.execute("DROP VIEW IF EXISTS api_tokens")
    conn.execute("VACUUM")
    conn.close()


async def make(out: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        ca = trustme.CA()
        ca.cert_pem.write_to_path(str(root / "ca.pem"))
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
        hooks, servers = {"flaky": Receiver(2), "dead": Receiver(10_000)}, []
        receivers = {}
        for name, receiver in hooks.items():
            hook_app = web.Application()
            hook_app.router.add_post("/hooks", receiver.handle)
            server = TestServer(hook_app, host="127.0.0.1")
            await server.start_server(ssl=context)
            servers.append(server)
            receivers[name] = f"https://127.0.0.1:{server.port}/hooks"
        data_dir = root / "data"
        client = TestClient(TestServer(create_app(settings(data_dir, root / "ca.pem"), clock=Clock.virtual(START))))
        await client.start_server()
        try:
            d = Driver(client)
            await drive(d, receivers)
            answers = await record_answers(d)
        finally:
            await client.close()
            for server in servers:
                await server.close()
        out.mkdir(parents=True, exist_ok=True)
        for name in KEPT:
            shutil.copyfile(data_dir / name, out / name)
        only_the_log(out / "events.db")
        (out / "answers.json").write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    asyncio.run(make(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE))
