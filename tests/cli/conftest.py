"""The commands' tests run against a data dir the real app wrote (`prepared`)."""

import pytest

from .prepared import Prepared, prepare


@pytest.fixture
async def prepared(aiohttp_client, settings, clock) -> Prepared:
    """A data dir with a login and two API tokens, `early` and `late`, ten minutes apart."""
    return await prepare(aiohttp_client, settings, clock)
