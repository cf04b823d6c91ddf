"""The pytest plugin (entry point `pytest11`, so any project that installs telephony has it).

Each test that asks for `telephony_server` gets the real app, in-process on a free port of
127.0.0.1, on a fresh data dir, a reproducible clock and secrets drawn from the seed: usable from
sync and async tests alike (it runs in a thread of its own). Around it: `telephony_customer`,
`telephony_clock`, `simulate_inbound_call`, `simulate_inbound_sms`, `wait_for_event` and
`webhook_receiver` (HTTPS, with a certificate the server trusts). Options: `--telephony-seed N`
(ini `telephony_seed`, 1 by default), `--telephony-config PATH` (ini `telephony_config`: a
config.toml whose settings the server starts with, `TELEPHONY_*` variables ignored) and the ini
`telephony_start` (the clock's start, `YYYY-MM-DD HH:MM:SS` UTC; now by default).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trustme

from .. import embedded
from ..clock import Clock, parse_wire_time
from ..config import Settings, load_settings
from ..security import Entropy
from . import events
from .harness import TelephonyClock, TelephonyCustomer, TelephonyServer
from .inprocess import settings_for
from .receiver import WebhookReceiver


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("telephony", "telephony's server for integration tests")
    group.addoption("--telephony-seed", type=int, help="the seed of the simulator and of the server's secrets")
    group.addoption("--telephony-config", help="a config.toml for the server (its storage and control key aside)")
    parser.addini("telephony_seed", "the seed of the simulator and of the server's secrets (1)", default="1")
    parser.addini("telephony_config", "a config.toml for the telephony server", default="")
    parser.addini("telephony_start", "the server clock's start, YYYY-MM-DD HH:MM:SS UTC (now)", default="")


@pytest.fixture(scope="session")
def telephony_ca(tmp_path_factory: pytest.TempPathFactory) -> tuple[trustme.CA, Path]:
    """A CA of the session, and its certificate's file, which every server of the session trusts."""
    ca, pem = trustme.CA(), tmp_path_factory.mktemp("telephony-ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    return ca, pem


@pytest.fixture
def telephony_eventlog_url() -> str:
    """Where the test's server keeps its log and read models: empty for SQLite in its data dir (the
    configuration's `[eventlog] url` aside); a conftest may give each test a PostgreSQL schema."""
    return ""


@pytest.fixture
def telephony_server(request: pytest.FixtureRequest, tmp_path: Path, telephony_ca: tuple[trustme.CA, Path],
                     telephony_eventlog_url: str) -> Iterator[TelephonyServer]:  # fmt: skip
    """The real app in-process on a free port, on a fresh data dir (and `telephony_eventlog_url`), for this test."""
    config = request.config
    given = config.getoption("telephony_seed")
    seed = given if given is not None else int(config.getini("telephony_seed"))
    path = config.getoption("telephony_config") or config.getini("telephony_config")
    base = load_settings(path, environ={}) if path else Settings()
    key, data_dir = secrets.token_hex(20), tmp_path / "telephony"
    settings = settings_for(base, data_dir, seed, key, ca_file=str(telephony_ca[1]))
    if telephony_eventlog_url:
        settings = msgspec.structs.replace(
            settings, eventlog=msgspec.structs.replace(settings.eventlog, url=telephony_eventlog_url)
        )
    start = config.getini("telephony_start")
    clock = Clock.reproducible(parse_wire_time(start).timestamp() if start else float(int(time.time())))
    with embedded.serving(settings, clock=clock, entropy=Entropy(seed)) as url:
        yield TelephonyServer(url, key, data_dir, seed, settings.api.service)


@pytest.fixture
def telephony_customer(telephony_server: TelephonyServer) -> TelephonyCustomer:
    """A customer of its own with a root user, logged in, and an API key."""
    return telephony_server.customer()


@pytest.fixture
def telephony_clock(telephony_server: TelephonyServer) -> TelephonyClock:
    """The server's controllable clock: `now()`, `advance(seconds)`, `set(moment)`."""
    return TelephonyClock(telephony_server)


@pytest.fixture
def simulate_inbound_call(telephony_server: TelephonyServer) -> Callable[..., dict[str, Any]]:
    """`simulate_inbound_call(from_, to, answer=..., digits=..., hangup_after=...)`: an outside caller
    rings a customer's number; the live call."""

    def call(from_: str, to: str, **options: Any) -> dict[str, Any]:
        body = {"from": from_, "to": to, **options}
        return dict(telephony_server.operator("POST", "/simulate/inbound-call", body)["data"])

    return call


@pytest.fixture
def simulate_inbound_sms(telephony_server: TelephonyServer) -> Callable[..., dict[str, Any]]:
    """`simulate_inbound_sms(from_, to, text)`: an SMS arrives on a customer's number; the SMS."""

    def sms(from_: str, to: str, text: str) -> dict[str, Any]:
        body = {"from": from_, "to": to, "text": text}
        return dict(telephony_server.operator("POST", "/simulate/inbound-sms", body)["data"])

    return sms


@pytest.fixture
def wait_for_event(telephony_server: TelephonyServer) -> Callable[..., dict[str, Any]]:
    """`wait_for_event(name, timeout=10, **match)`: the data of the first event named `name` (a
    pattern such as `call.*`) recorded since the server started whose fields match."""

    def wait(name: str, timeout: float = 10.0, **match: Any) -> dict[str, Any]:
        return events.wait_for(telephony_server.url, telephony_server.control_key, name, timeout, **match)

    return wait


@pytest.fixture
def webhook_receiver(telephony_ca: tuple[trustme.CA, Path]) -> Iterator[WebhookReceiver]:
    """A local HTTPS receiver the server trusts, verifying signatures and keeping deliveries;
    `subscribe(customer, events)` points a webhook of the customer at it."""
    with WebhookReceiver().serving(telephony_ca[0]) as receiver:
        yield receiver
