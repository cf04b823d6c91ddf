"""`telephony listen`, run as a real process: every event of a call forwarded in order to a plain HTTP
receiver, signed; a failed forward tried again; a restart going on where it stopped, nothing lost or
forwarded twice; what it cannot do refused with exit status 2."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from aiohttp import web

from tests.accounts.helpers import CONTROL
from tests.calls.conftest import ANSWERS
from tests.calls.helpers import advance, place
from tests.conftest import CONTROL_KEY
from tests.serving import SERVICE, Server, clean_env, login
from tests.stream.streams import opened
from tests.webhooks.receiver import Receiver, start, verified

CALL = ["call.initial", "call.ringing", "call.connected", "call.hangup"]
DEADLINE = 30.0


@dataclass
class Local(Receiver):
    """A plain HTTP receiver that says when each POST arrives, and can hold its answer to the n-th."""

    arrived: asyncio.Queue = field(default_factory=asyncio.Queue)
    hold: int | None = None
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def handle(self, request: web.Request) -> web.Response:
        answer = await super().handle(request)
        self.arrived.put_nowait(len(self.got))
        if len(self.got) == self.hold:
            await self.release.wait()
        return answer

    async def wait_for(self, count: int) -> None:
        while len(self.got) < count:
            await asyncio.wait_for(self.arrived.get(), DEADLINE)


class Listening:
    """One `telephony listen` process and what it printed."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []

    async def line(self, starting: str) -> str:
        while True:
            assert self.process.stdout is not None
            read = (await asyncio.wait_for(self.process.stdout.readline(), DEADLINE)).decode()
            assert read, f"listen ended before printing {starting!r}: {self.lines}"
            self.lines.append(read.rstrip("\n"))
            if read.startswith(starting):
                return read

    async def stopped(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return await self.finished()

    async def finished(self) -> int:
        assert self.process.stdout is not None
        rest = await asyncio.wait_for(self.process.stdout.read(), DEADLINE)
        self.lines += rest.decode().splitlines()
        return await asyncio.wait_for(self.process.wait(), DEADLINE)


async def listen(client, cwd: Path, *args: str) -> Listening:
    """`telephony listen` following the test's server."""
    return await listen_to(str(client.make_url("")).rstrip("/"), cwd, *args)


async def listen_to(server: str, cwd: Path, *args: str) -> Listening:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "telephony", "listen", "--server", server, "--control-key", CONTROL_KEY, *args,
        cwd=cwd, env=clean_env(), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    return Listening(process)


async def test_listen_forwards_every_event_of_a_call_in_order_and_resumes_after_its_restart(
    client, root, aiohttp_server, tmp_path
):
    receiver = await start(aiohttp_server, None, Local(hold=2))
    forwarding = ("--forward-to", receiver.url, "--events", "call.*", "--state", str(tmp_path / "listen.json"))
    first = await listen(client, tmp_path, *forwarding)
    secret = re.search(r"whsec_\S+", await first.line("Ready")).group(0)
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await advance(client, 2)  # the caller's own phone answers at 1 s, then the destination rings
    await receiver.wait_for(2)  # call.ringing arrived, its answer held: listen is stopped mid-way
    first.process.send_signal(signal.SIGTERM)
    await first.line("Stopping once the delivery under way is answered")
    receiver.release.set()
    assert await first.finished() == 0
    await advance(client, 70)  # connected, then hung up, while nobody listens
    second = await listen(client, tmp_path, *forwarding)
    assert secret in await second.line("Ready")  # the same secret, kept beside the place
    await receiver.wait_for(4)
    assert await second.stopped() == 0

    now = int(time.time())
    bodies = [verified(secret, headers, body, now) for headers, body in receiver.got]
    assert [b["event_name"] for b in bodies] == CALL and {b["call_id"] for b in bodies} == {call_id}
    assert [h["webhook-id"] for h, _ in receiver.got] == [b["id"] for b in bodies]
    assert [h["telephony-event"] for h, _ in receiver.got] == CALL
    streamed = await (await opened(client, headers={**CONTROL, "Last-Event-ID": "0"}, events="call.*")).take(4)
    assert [body for _, body in receiver.got] == [m.data.encode() for m in streamed]
    printed = [line for line in first.lines + second.lines if "  -> " in line]
    assert [line.split()[3] for line in printed] == CALL and all(line.endswith("-> 204") for line in printed)
    assert json.loads((tmp_path / "listen.json").read_text())["position"] == streamed[-1].position
    assert oct((tmp_path / "listen.json").stat().st_mode & 0o777) == "0o600"


async def test_a_forward_that_fails_is_tried_again_and_later_events_wait_their_turn(
    client, root, aiohttp_server, tmp_path
):
    receiver = await start(aiohttp_server, None, Local(failures=1))
    running = await listen(client, tmp_path, "--forward-to", receiver.url, "--events", "call.initial,call.ringing",
                           "--state", str(tmp_path / "listen.json"), "--secret", "whsec_" + "A" * 44)  # fmt: skip
    await running.line("Ready")
    await place(client, root, to=ANSWERS + "1")
    await advance(client, 2)
    await receiver.wait_for(3)  # a 500, then the same event again after 1 s, then the next
    assert await running.stopped() == 0
    assert [json.loads(body)["event_name"] for _, body in receiver.got] == ["call.initial", "call.initial",
                                                                            "call.ringing"]  # fmt: skip
    assert receiver.got[0][0]["webhook-id"] == receiver.got[1][0]["webhook-id"]
    assert any("call.initial" in line and line.endswith("-> 500, again in 1 s") for line in running.lines)
    assert "secret" not in json.loads((tmp_path / "listen.json").read_text())  # given, so not kept


async def test_listen_refuses_what_it_cannot_do_with_exit_status_2(client, tmp_path):
    for args, said in (
        (("--forward-to", "http://example.com/hooks"), "Only https:// URLs are supported"),
        (("--forward-to", "http://127.0.0.1:9/hooks", "--secret", "hunter2"), "--secret must be a whsec_"),
    ):
        running = await listen(client, tmp_path, *args)
        assert await running.finished() == 2 and any(said in line for line in running.lines), running.lines
    server = str(client.make_url("")).rstrip("/")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "telephony", "listen", "--server", server, "--control-key", "wrong", cwd=tmp_path,
        env=clean_env(), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(process.communicate(), DEADLINE)
    assert process.returncode == 2 and err.decode().startswith("telephony: the server answered 401")


async def test_a_saved_place_past_the_servers_log_starts_from_its_end(client, root, aiohttp_server, tmp_path):
    receiver = await start(aiohttp_server, None, Local())
    state = tmp_path / "listen.json"
    state.write_text(json.dumps({"position": 999_999, "sent": 0, "secret": "whsec_" + "B" * 44}))  # a new data dir's
    running = await listen(client, tmp_path, "--forward-to", receiver.url, "--events", "call.initial",
                           "--state", str(state))  # fmt: skip
    await running.line("Ready")
    assert any("another log" in line for line in running.lines)
    call_id = (await place(client, root, to=ANSWERS + "1"))["data"]["id"]
    await receiver.wait_for(1)
    assert await running.stopped() == 0
    assert [json.loads(body)["call_id"] for _, body in receiver.got] == [call_id]


async def test_listen_follows_a_restarted_server_on_from_where_it_was(aiohttp_server, tmp_path):
    receiver = await start(aiohttp_server, None, Local())
    server = Server(tmp_path / "data", tmp_path, TELEPHONY_SIMULATOR_ANSWER_RATE="1", TELEPHONY_SIMULATOR_BUSY_RATE="0")
    await server.start()
    async with aiohttp.ClientSession(server.url) as session:
        running = await listen_to(server.url, tmp_path, "--forward-to", receiver.url, "--events", "call.*",
                                  "--state", str(tmp_path / "listen.json"))  # fmt: skip
        await running.line("Ready")
        token = await login(session)
        answer = await session.post(f"{SERVICE}/calls", json={"to": ANSWERS}, headers={"X-Auth-Token": token})
        call_id = (await answer.json())["data"]["id"]
        await receiver.wait_for(1)
        server.stop()  # the stream ends with the server
        await running.line("The server ended the stream")
        await server.start()
        await running.line("Following the stream again")
        await session.post("/_telephony/clock", json={"advance": 600}, headers=CONTROL)
        await receiver.wait_for(4)
    server.stop()
    assert await running.stopped() == 0
    assert [(b["event_name"], b["call_id"]) for b in map(json.loads, (b for _, b in receiver.got))] == [
        (name, call_id) for name in CALL]  # fmt: skip
