"""Shared fixtures: settings in a temporary data dir and the real app over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from telephony.app import create_app
from telephony.clock import Clock
from telephony.config import Control, EventLogSettings, Settings, Storage

CONTROL_KEY = "test-control-key-0123456789"
pytest_plugins = ("pytester",)


STORES = {"sqlite": ("sqlite",), "postgresql": ("postgresql",), "both": ("sqlite", "postgresql")}


def pytest_addoption(parser) -> None:
    parser.addoption("--store", choices=tuple(STORES), default="sqlite",
                     help="the store the app's tests run on: its log and read models (postgresql: a database copied "
                          "from a template on a cluster started for the session, tests/postgres.py)")  # fmt: skip


def pytest_generate_tests(metafunc) -> None:
    """Tests of the app run on each store `--store` names; those marked `sqlite_only` on SQLite alone."""
    stores = STORES[metafunc.config.getoption("--store")]
    if metafunc.definition.get_closest_marker("sqlite_only"):
        return
    if "app_store" in metafunc.fixturenames:
        metafunc.parametrize("app_store", stores, indirect=True)
    if "module_store" in metafunc.fixturenames:
        metafunc.parametrize("module_store", stores, indirect=True, scope="module")


@pytest.fixture
def app_store(request) -> str:
    """The store the test's app runs on (`--store`)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def telephony_eventlog_url(app_store, request) -> str:
    """The test's PostgreSQL database when it runs on PostgreSQL (the plugin's `telephony_server` too)."""
    return request.getfixturevalue("postgres_cluster").app_url() if app_store == "postgresql" else ""


@pytest.fixture(scope="module")
def module_store(request) -> str:
    """The store a module's shared app runs on (`--store`): the module runs once per store."""
    return getattr(request, "param", "sqlite")


@pytest.fixture(scope="module")
def module_eventlog_url(module_store, request) -> Iterator[str]:
    """A PostgreSQL database kept for the module's shared app when it runs on PostgreSQL, else ""."""
    yield from kept_database(request, module_store == "postgresql")


@pytest.fixture
def another_eventlog_url(settings, request) -> Iterator[str]:
    """A second empty log on the test's store: a PostgreSQL database of its own, or "" on SQLite (a data
    dir's). Ask for it before `aiohttp_client`, so the apps close before it is dropped."""
    yield from kept_database(request, bool(settings.eventlog.url))


def kept_database(request, on_postgresql: bool) -> Iterator[str]:
    """The URL of an empty PostgreSQL log kept until the fixture ends (then dropped), or ""."""
    if not on_postgresql:
        yield ""
        return
    cluster = request.getfixturevalue("postgres_cluster")
    url = cluster.app_url(kept=True)
    yield url
    cluster.drop(url)


@pytest.fixture
def settings(tmp_path, telephony_eventlog_url) -> Settings:
    url = telephony_eventlog_url
    return Settings(storage=Storage(data_dir=str(tmp_path / "data")), control=Control(key=CONTROL_KEY),
                    eventlog=EventLogSettings(url=url))  # fmt: skip


@pytest.fixture
def clock() -> Clock:
    return Clock.virtual()


@pytest.fixture
async def client(aiohttp_client, settings, clock):
    return await aiohttp_client(create_app(settings, clock=clock))


@pytest.fixture
def control_headers() -> dict[str, str]:
    return {"X-Control-Key": CONTROL_KEY}


@pytest.fixture(scope="session")
def postgres_cluster():
    """The session's throwaway PostgreSQL cluster (see tests/postgres.py)."""
    from .postgres import start_cluster

    cluster = start_cluster()
    yield cluster
    cluster.stop()
