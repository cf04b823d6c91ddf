"""Rules every route keeps, generated over the whole route table (API and control routes alike)."""

from __future__ import annotations

import re

import pytest

from telephony import wiring
from telephony.api.routing import Route, template
from tests.registry.conftest import CONTROL, LOOP

pytestmark = LOOP

ROUTES = [*wiring.api_routes(), *wiring.control_routes()]
PARAMETER = re.compile(r"\{(\w+)(?::((?:[^{}]|\{[^{}]*\})*))?\}")
SAMPLES = ("1", "447700900123", "1,2", "mp3", "x")
"""A value for a path parameter: the first its pattern takes."""
NON_ASCII_DIGITS = ("١", "１", "٣٤", "1١")
"""Arabic-Indic, fullwidth, and a mix: `re`'s `\\d` and `int()` take them all."""


def path_of(route: Route, **values: str) -> str:
    """The route's path with a valid value for every parameter not given."""

    def value(match: re.Match) -> str:
        name, pattern = match.group(1), match.group(2) or "[^{}/]+"
        return values.get(name) or next(s for s in SAMPLES if re.fullmatch(pattern, s))

    path = PARAMETER.sub(value, route.path)
    return path if route.origin == "control" else f"/v1.2/voipstudio{path}"


def digit_parameters() -> list:
    cases = []
    for route in ROUTES:
        for name, pattern in PARAMETER.findall(route.path):
            if "[0-9]" in pattern:
                cases.append(pytest.param(route, name, id=f"{route.method} {template(route.path)} {name}"))
    return cases


@pytest.mark.parametrize(("route", "name"), digit_parameters())
async def test_a_number_in_a_path_is_ascii_digits_only(api, home, route, name):
    for digits in NON_ASCII_DIGITS:
        path = path_of(route, **{name: digits})
        json = {} if route.method in ("POST", "PATCH") else None
        response = await api.client.request(route.method, path, headers={**home.headers, **CONTROL}, json=json)
        assert response.status == 404, (path, response.status, await response.text())
        assert (await response.json())["message"] == "Resource not found"
