"""Fixtures of the accounts tests: both versions, both schemes, the bootstrap root user."""

from __future__ import annotations

import pytest

from telephony.accounts.decisions import FIRST_CUSTOMER_ID, FIRST_USER_ID
from tests.accounts.helpers import SCHEMES, VERSIONS, Creds, login

HOME = FIRST_CUSTOMER_ID  # the bootstrap customer
ROOT_ID = FIRST_USER_ID  # its root user


@pytest.fixture(params=VERSIONS)
def version(request) -> str:
    return request.param


@pytest.fixture(params=SCHEMES)
def scheme(request) -> str:
    return request.param


@pytest.fixture
def root_email(settings) -> str:
    return settings.bootstrap.admin_email


@pytest.fixture
def root_password(settings) -> str:
    return settings.bootstrap.admin_password


@pytest.fixture
async def root(client, version, root_email, root_password) -> Creds:
    """The bootstrap root user, logged in under the test's version."""
    return await login(client, version, root_email, root_password)


@pytest.fixture
async def root_v12(client, root_email, root_password) -> Creds:
    """The bootstrap root user, logged in under v1.2 (the version that brought /apitokens)."""
    return await login(client, "v1.2", root_email, root_password)
