"""Schemathesis against the real app over HTTP: no 5xx, and every status, media type and body is documented.

The app runs on 127.0.0.1 in a thread of its own; each operation of the OpenAPI document, the
operator's control endpoints included, gets a few generated requests (positive data only, no
shrinking), sent with an API key of the bootstrap root user and the control key.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from telephony.config import Control, EventLogSettings, Settings, Storage
from telephony.embedded import serving
from telephony.openapi import build_document
from telephony.wiring import api_routes, control_routes

SERVICE = "voipstudio"
ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
MAX_EXAMPLES = 5
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
CONTROL_KEY = "schemathesis-control-key-0123"
SCHEMA = schemathesis.openapi.from_dict(build_document(api_routes(), SERVICE, control_routes()))
ENDLESS = {"/_telephony/events/stream", "/_telephony/dashboard/stream"}
"""Operations whose answer goes on until the client leaves (server-sent events), which a check of a
whole response cannot read: `tests/stream/test_stream.py` and `tests/dashboard/test_wallboard.py` cover them."""
FAULTS = "/_telephony/faults"
"""The fault rules a case adds are removed after it: they fail other operations' requests on purpose."""
OPERATIONS = [op for op in (result.ok() for result in SCHEMA.get_all_operations()) if op.path not in ENDLESS]


@schemathesis.serializer("application/x-ndjson")
def json_lines(context, value) -> bytes:
    """An import body: the generated text as it is."""
    return value.encode() if isinstance(value, str) else bytes(value)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory, module_eventlog_url) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("schemathesis") / "data"
    with serving(Settings(storage=Storage(data_dir=str(data_dir)), control=Control(key=CONTROL_KEY),
                          eventlog=EventLogSettings(url=module_eventlog_url))) as url:  # fmt: skip
        yield url


@pytest.fixture(scope="module")
def auth(base_url) -> dict[str, str]:
    """An API key of the bootstrap root user: unlike a login token it outlives the run's own `POST /logout`."""
    login = requests.post(f"{base_url}/v1.2/{SERVICE}/login", json=ADMIN, timeout=10)
    assert login.status_code == 200, login.text
    user_id = login.json()["user_id"]
    key = requests.post(
        f"{base_url}/_telephony/users/{user_id}/apikeys",
        json={"name": "schemathesis"},
        headers={"X-Control-Key": CONTROL_KEY},
        timeout=10,
    )
    assert key.status_code == 201, key.text
    return {"X-Auth-Token": key.json()["data"]["key"], "X-Control-Key": CONTROL_KEY}


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.label)
def test_operation(operation, base_url, auth):
    @given(case=operation.as_strategy())
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def check(case):
        try:
            response = case.call(base_url=base_url, headers=auth, timeout=10)
            case.validate_response(response, checks=CHECKS)
        finally:
            if case.path.startswith(FAULTS):
                requests.delete(f"{base_url}{FAULTS}", headers=auth, timeout=10)

    check()
