"""The JSON Schema of the scenario file, drawn from its model and served beside the OpenAPI document
(open, as that is): `GET /_telephony/scenario.schema.json`."""

from __future__ import annotations

import functools
from typing import Any

import msgspec
from aiohttp import web

from ..domain.scenario_file import Scenario
from .control import control_route, control_shape

DIALECT = "https://json-schema.org/draft/2020-12/schema"


@functools.cache
def document() -> bytes:
    """The schema, encoded once."""
    drawn = msgspec.json.schema(Scenario)
    return msgspec.json.encode({"$schema": DIALECT, "title": "A telephony scenario file", **drawn})


async def scenario_schema(request: web.Request) -> web.Response:
    return web.Response(body=document(), content_type="application/json")


ROUTES = [
    control_route("GET", "/scenario.schema.json", scenario_schema, control_shape(dict[str, Any], "bare"), open_=True),
]
