"""A demo made in the test's process on the controllable clock: a short history (two days) keeps the
tests quick; the command's ninety days are the same code over more days."""

from __future__ import annotations

import aiohttp
import msgspec
import pytest

from telephony import demo
from telephony.app import create_app
from telephony.config import Storage
from telephony.demo.operator import Operator
from telephony.demo.start import USER_AGENT, make

TODAY = 1_780_444_800.0
"""2026-06-03 00:00:00 UTC, a Wednesday: the tests' histories are a Sunday, a Monday and a Tuesday, and
the clock passes a month's start on the way (May's invoice closes)."""
DAYS = 3


class Made:
    """A demo's app served on a port, its history made, and the demo's own operator on it."""

    def __init__(self, shown: demo.Demo, server, session: aiohttp.ClientSession) -> None:
        self.demo, self.server, self.app = shown, server, server.app
        self.base = str(server.make_url("")).rstrip("/")
        self.op = Operator(session, self.base, shown.settings.api.service, shown.settings.control.key, "test")
        self.users: tuple[int, ...] = ()


@pytest.fixture
async def make_demo(aiohttp_server, settings):
    """`await make_demo(seed, data_dir=None)`: a new demo of `seed` with its history made."""
    async with aiohttp.ClientSession(headers={"User-Agent": USER_AGENT}) as session:

        async def made(seed: int = 1, data_dir=None) -> Made:
            chosen = settings if data_dir is None else settings_in(settings, data_dir)
            shown = demo.prepare(chosen, seed, today=TODAY, days=DAYS)
            server = await aiohttp_server(create_app(shown.settings, clock=shown.clock, entropy=shown.entropy))
            result = Made(shown, server, session)
            result.users = await make(server.app, shown, result.op)
            return result

        yield made


def settings_in(settings, data_dir):
    return msgspec.structs.replace(settings, storage=Storage(data_dir=str(data_dir)))
