"""Shared fixtures: settings in a temporary data dir and the real app over HTTP."""

from __future__ import annotations

import pytest

from telephony.app import create_app
from telephony.clock import Clock
from telephony.config import Control, Settings, Storage

CONTROL_KEY = "test-control-key-0123456789"
pytest_plugins = ("pytester",)


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(storage=Storage(data_dir=str(tmp_path / "data")), control=Control(key=CONTROL_KEY))


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
