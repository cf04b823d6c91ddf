"""`telephony replay --out [--until]` from a PostgreSQL log: the state at a point as a SQLite data dir."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import msgspec
import pytest

from telephony.app import create_app
from telephony.clock import Clock
from telephony.config import Control, EventLogSettings, Settings, Simulator, Storage
from tests.accounts.helpers import Creds, login, url
from tests.calls.conftest import ANSWERS, RULES
from tests.calls.helpers import advance, place

from ..serving import CONTROL_KEY, telephony

LISTS = ("/contacts", "/cdrs", "/calls")


@dataclass
class Sandbox:
    """A PostgreSQL log the app wrote a call and two contacts to, ten minutes apart (`Kept` after `cut`)."""

    settings: Settings
    position: int
    """The log's head between the two contacts."""
    cut: str
    """A UTC time between the two contacts."""
    lists: dict[str, dict]
    """What the app answered for each of `LISTS` at the end."""


async def listed(client, creds: Creds) -> dict[str, dict]:
    found = {}
    for path in LISTS:
        response = await client.get(url("v1.2", path), headers=creds.headers())
        assert response.status == 200, await response.text()
        found[path] = await response.json()
    return found


async def contact(client, creds: Creds, name: str) -> None:
    response = await client.post(url("v1.2", "/contacts"), json={"first_name": name}, headers=creds.headers())
    assert response.status == 201, await response.text()


@pytest.fixture
async def sandbox(aiohttp_client, postgres_cluster, tmp_path, clock) -> Sandbox:
    settings = Settings(storage=Storage(data_dir=str(tmp_path / "data")), control=Control(key=CONTROL_KEY),
                        eventlog=EventLogSettings(url=postgres_cluster.app_url()),
                        simulator=Simulator(seed=7, own_answer_seconds=1.0, destinations=RULES))  # fmt: skip
    client = await aiohttp_client(create_app(settings, clock=clock))
    root = await login(client, "v1.2", settings.bootstrap.admin_email, settings.bootstrap.admin_password)
    await contact(client, root, "Early")
    await place(client, root, to=ANSWERS + "1")
    await advance(client, 70)  # answered, talked and hung up: a CDR
    position = (await (await client.get("/_telephony/health")).json())["position"]
    cut = (clock.now() + timedelta(seconds=300)).strftime("%Y-%m-%d %H:%M:%S")
    await advance(client, 600)
    await contact(client, root, "Late")
    await place(client, root, to=ANSWERS + "2")  # live at the end
    lists = await listed(client, root)
    await client.close()
    return Sandbox(settings, position, cut, lists)


def replay(sandbox: Sandbox, *args: str | Path):
    """`telephony replay ARGS` on the sandbox's PostgreSQL log."""
    data_dir = sandbox.settings.data_dir
    return telephony("--data-dir", data_dir, "replay", *args, cwd=data_dir.parent,
                     TELEPHONY_EVENTLOG_URL=sandbox.settings.eventlog.url)  # fmt: skip


async def served(aiohttp_client, out: Path, sandbox: Sandbox) -> dict[str, dict]:
    """The lists of the data dir `out` served on SQLite, to the admin's login."""
    then = msgspec.structs.replace(sandbox.settings, storage=Storage(data_dir=str(out)), eventlog=EventLogSettings())
    client = await aiohttp_client(create_app(then, clock=Clock.virtual()))  # at the log's time: a live call's duration
    root = await login(client, "v1.2", then.bootstrap.admin_email, then.bootstrap.admin_password)
    return await listed(client, root)


def verified(out: Path) -> None:
    result = telephony("--data-dir", out, "verify", cwd=out.parent)
    assert result.returncode == 0 and "verify OK" in result.stdout, result.stdout + result.stderr


async def test_replay_out_of_a_postgresql_log_serves_the_same_lists_and_verifies(sandbox, aiohttp_client, tmp_path):
    out = tmp_path / "copy"
    result = replay(sandbox, "--out", out)
    assert result.returncode == 0 and f"to {out}" in result.stdout, result.stderr
    verified(out)
    assert (out / "secret.key").read_bytes() == (sandbox.settings.data_dir / "secret.key").read_bytes()
    copied = await served(aiohttp_client, out, sandbox)
    assert copied == sandbox.lists
    assert copied["/contacts"]["total"] == 2 and copied["/cdrs"]["total"] == 1 and copied["/calls"]["total"] == 1


@pytest.mark.parametrize("point", ["position", "time"])
async def test_replay_until_a_point_of_a_postgresql_log_gives_the_state_then(sandbox, aiohttp_client, tmp_path, point):
    out = tmp_path / "then"
    result = replay(sandbox, "--until", str(sandbox.position) if point == "position" else sandbox.cut, "--out", out)
    assert result.returncode == 0, result.stderr
    verified(out)
    then = await served(aiohttp_client, out, sandbox)
    assert [c["first_name"] for c in then["/contacts"]["data"]] == ["Early"]
    assert then["/cdrs"] == sandbox.lists["/cdrs"] and then["/calls"]["total"] == 0


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--until", "soon", "--out", "then"], "--until 'soon' is not a time"),
        (["--until", "3"], "--until needs --out"),
        (["--out", "data"], "give a new data dir"),
    ],
)
async def test_replay_of_a_postgresql_log_refuses_bad_arguments_with_exit_2(sandbox, args, said):
    result = replay(sandbox, *args)
    assert result.returncode == 2 and said in result.stderr, result.stderr
