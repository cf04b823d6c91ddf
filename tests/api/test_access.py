"""Who may call each route is declared on the route (`Route.access`) and checked by the one pipeline,
generated over the whole route table: none is forgotten, a caller without credentials is a 401, and a
user whose roles do not let it in is a 403 before the handler runs (nothing is written)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import telephony
from telephony import wiring
from telephony.api.access import OPEN, Access
from telephony.api.route_table import Route, template
from telephony.keys import EVENT_LOG
from tests.registry.conftest import CONTROL, LOOP

from .test_route_table import path_of

API_ROUTES, CONTROL_ROUTES = wiring.api_routes(), wiring.control_routes()
ROUTES = [*API_ROUTES, *CONTROL_ROUTES]
REFUSING = {
    "check": "the pipeline's check (api/access.py)",
    "_may_touch": "a rule on a record: a user changes its own audio, the root administrator anyone's",
    "_customer": "the event stream, which authenticates itself (the control key or a user's token)",
    "place": "a softphone's INVITE (calls/phones.py), authenticated by SIP: POST /calls's own access, asked of it",
}
"""The only functions that refuse a caller (403) themselves, and why."""
READING = {r.access for r in ROUTES if r.access.kind == "user" or (r.access.kind == "module" and not r.access.write)}
"""Accesses a read-only user passes (every role reads every module)."""


def param(route: Route):
    return pytest.param(route, id=f"{route.method} {template(route.path)} ({route.access})")


def routes_where(keep) -> list:
    return [param(route) for route in ROUTES if keep(route)]


def test_every_route_declares_who_may_call_it():
    assert all(isinstance(route.access, Access) for route in ROUTES)
    assert not [r for r in API_ROUTES if r.access.kind == "control"], "the API takes users, not the control key"
    operators = [r for r in CONTROL_ROUTES if r.origin == "control"]
    assert {r.access.kind for r in operators} == {"control", "open"}


def test_no_handler_refuses_a_caller_itself():
    package = Path(telephony.__file__).parent
    refusing = {}
    for path in sorted(package.rglob("*.py")):
        for function in ast.walk(ast.parse(path.read_text())):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                and getattr(node.exc.func, "id", None) == "Forbidden" for node in ast.walk(function)
            ):  # fmt: skip
                refusing[function.name] = str(path.relative_to(package))
    assert set(refusing) == set(REFUSING), refusing


@LOOP
@pytest.mark.parametrize("route", routes_where(lambda route: route.access is not OPEN))
async def test_a_route_that_is_not_open_is_a_401_without_credentials(api, route):
    response = await api.client.request(route.method, path_of(route))
    assert response.status == 401, (route.method, route.path, await response.text())


@LOOP
@pytest.mark.parametrize("route", routes_where(lambda route: route.access.kind == "root" or route.access.write))
async def test_a_user_the_route_does_not_let_in_is_a_403_and_nothing_is_written(api, reader, route):
    before = api.app[EVENT_LOG].position
    response = await api.client.request(route.method, path_of(route), headers=reader.headers)
    assert response.status == 403, (route.method, route.path, await response.text())
    message = (await response.json())["message"]
    assert message == (route.access.refusal or _refusal(route.access))
    assert api.app[EVENT_LOG].position == before


@LOOP
@pytest.mark.parametrize("route", routes_where(lambda route: route.method == "GET" and route.access in READING))
async def test_a_read_only_user_is_let_in_wherever_a_route_reads(api, reader, route):
    response = await api.client.get(path_of(route), headers=reader.headers, params={"limit": "1"})
    assert response.status != 403, (route.method, route.path, await response.text())


@LOOP
@pytest.mark.parametrize("route", routes_where(lambda route: route.method == "GET" and route.access is not OPEN))
async def test_the_root_administrator_is_let_in_wherever_a_route_reads(api, home, route):
    response = await api.client.get(path_of(route), headers={**home.headers, **CONTROL}, params={"limit": "1"})
    assert response.status not in (401, 403), (route.method, route.path, await response.text())


@LOOP
async def test_a_user_who_is_not_root_may_delete_no_customer_its_own_or_another(api, reader, other):
    for customer_id in (reader.customer_id, other.customer_id):
        response = await api.client.delete(f"/v1.2/voipstudio/customers/{customer_id}", headers=reader.headers)
        assert response.status == 403
        assert (await response.json())["message"] == "Access denied: only the root administrator may do this"


def _refusal(access: Access) -> str:
    if access.kind == "root":
        return "Access denied: only the root administrator may do this"
    return f"Access denied: your roles do not allow {'changing' if access.write else 'reading'} {access.module}"
