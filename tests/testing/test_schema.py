"""The scenario file's JSON Schema: served open beside the OpenAPI document, drawn from the model the
runner reads files with, so the shipped scenarios hold to it and a bad file does not."""

from __future__ import annotations

import jsonschema
import pytest
import yaml

from tests.testing.test_scenarios import BAD, SHIPPED, SMALL


@pytest.fixture
async def schema(client) -> dict:
    response = await client.get("/_telephony/scenario.schema.json")  # no control key: open, as openapi.json is
    assert response.status == 200 and response.content_type == "application/json"
    return await response.json()


async def test_the_schema_is_served_open_and_is_a_valid_json_schema(client, schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$defs"]["Step"]["properties"]["inbound_call"]["anyOf"][0]["description"].startswith(
        "POST /_telephony/simulate/inbound-call"
    )
    listed = await (await client.get("/_telephony/openapi.json")).json()
    assert "/_telephony/scenario.schema.json" in listed["paths"]


async def test_the_shipped_scenarios_and_a_small_one_hold_to_the_schema_and_a_bad_one_does_not(schema):
    validator = jsonschema.Draft202012Validator(schema)
    for path in SHIPPED:
        validator.validate(yaml.safe_load(path.read_text()))
    validator.validate(yaml.safe_load(SMALL))
    problems = sorted(".".join(map(str, e.absolute_path)) for e in validator.iter_errors(yaml.safe_load(BAD)))
    assert problems == ["seed", "steps.0.at", "steps.1"]
