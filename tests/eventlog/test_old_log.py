"""A data dir written by the code before typed events (`old_log/`, made by `make_old_log.py`) opens with
today's code: its log loads, replays and verifies, and the API answers as it did then."""

from __future__ import annotations

import json
import shutil

import pytest

from telephony.app import create_app
from telephony.clock import Clock
from telephony.config import Control, Settings, Storage
from telephony.domain.events.calls import CallEnded, CallRouted
from telephony.keys import EVENT_LOG
from tests.serving import telephony

from .make_old_log import ANSWERED, HERE, OPERATOR_ANSWERED
from .old_log_driver import CONTROL, CONTROL_KEY, START, V12

ADDED = {"/cdrs?limit=5000&sort=id": "hangup_by"}
"""A field the records calls draw have gained since the fixture was made: checked against what the old
log says, then left out of the comparison with the recorded answer (records imported as they were
written, CDRs of an export, are answered as recorded)."""


@pytest.fixture
def data_dir(tmp_path):
    copied = tmp_path / "data"
    shutil.copytree(HERE, copied, ignore=shutil.ignore_patterns("answers.json"))
    return copied


async def test_the_old_log_opens_and_the_api_answers_as_it_did(aiohttp_client, data_dir):
    settings = Settings(storage=Storage(data_dir=str(data_dir)), control=Control(key=CONTROL_KEY))
    client = await aiohttp_client(create_app(settings, clock=Clock.virtual(START)))
    expected = json.loads((HERE / "answers.json").read_text())
    login = await client.post(f"{V12}/login", json={"email": "admin@example.com", "password": "change-me-now"})
    headers = {"X-Auth-Token": (await login.json())["user_token"]}
    for path in (*ANSWERED, *OPERATOR_ANSWERED):
        url = path if path.startswith("/_telephony") else V12 + path
        response = await client.get(url, headers=headers)
        assert response.status == 200, path
        answered = await response.json()
        if path in ADDED:
            drawn = await hung_up_by(client.app[EVENT_LOG])
            added = {record["id"]: record.pop(ADDED[path]) for record in answered["data"] if record["id"] in drawn}
            assert added == drawn and set(drawn.values()) == {"src", "dst", None}, path
        assert answered == expected[path], path
    verified = await client.post("/_telephony/verify", headers=CONTROL)
    assert (await verified.json())["data"]["problem"] is None


async def hung_up_by(event_log) -> dict[int, str | None]:
    """Each CDR's `hangup_by` as the log has it: the side each ended call's ending names (None on the
    missed-call records of users who let a call ring out)."""
    cdrs = {}
    for recorded in await event_log.read():
        if isinstance(event := recorded.event, CallEnded) and event.records is not None:
            cdrs[event.records.cdr] = event.by
        elif isinstance(event, CallRouted) and event.missed is not None:
            cdrs[event.missed.body["id"]] = None
    return cdrs


def test_the_old_log_replays_and_verifies(data_dir, tmp_path):
    """The fixture keeps the log alone: a replay builds every read model from it, which `verify` checks
    (the hash chain, a fresh replay, the in-memory projections and their snapshots)."""
    replayed = telephony("--data-dir", data_dir, "replay", cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    verified = telephony("--data-dir", data_dir, "verify", cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
