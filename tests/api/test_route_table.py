"""Rules every route keeps, generated over the whole route table (API and control routes alike)."""

from __future__ import annotations

import re
import typing

import msgspec
import pytest
import pytest_asyncio
from msgspec import inspect as mi

from telephony import wiring
from telephony.api.route_table import Route, template
from telephony.domain.events import events_of
from telephony.domain.validation import patterns_of
from telephony.eventlog import NewEvent
from telephony.keys import ACCOUNTS, EVENT_LOG
from telephony.mail import recording
from telephony.registry.catalogue import BY_PATH
from tests.registry.conftest import CONTROL, LOOP, make, seed

pytestmark = LOOP

ROUTES = [*wiring.api_routes(), *wiring.control_routes()]
CONTROL_PATHS = frozenset(route.path for route in wiring.control_routes())
"""Paths served as they are (the operator's, `GET /`); every other is served under a version's prefix."""
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
    return path if route.path in CONTROL_PATHS else f"/v1.2/voipstudio{path}"


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


# --- what hangs from a record: a parent the caller cannot see is a 404 -----------------------------

MISSING = 999_999_999
NO_LIVE_CALL = "calls"
"""A live call exists only while it lasts, and none does until a call engine runs: what hangs from one
is a 404 for every id, so only the missing case applies."""
CONTROL_BODIES = {
    "/_telephony/customers/{id}/users": {"email": "nested@example.com", "password": "correct-horse-battery"},
    "/_telephony/customers/{id}/ddis": {"e164": "+447700911911"},
    "/_telephony/users/{id}/apikeys": {"name": "nested"},
    "/_telephony/customers/{id}/credit": {"amount": 5},
    "/_telephony/customers/{id}/tariffs": [{"prefix": "44", "per_minute": 0.01}],
}


def nested_routes() -> list:
    """(route, case) for every route below a record (`/users/{id}/cdrs`), API and control alike: the
    parent is the caller's own, another customer's (API routes only) or missing."""
    cases = []
    for route in ROUTES:
        path = template(route.path)
        if not re.search(r"\}/", path):
            continue
        control = route.origin == "control"
        parent = path.removeprefix("/_telephony").split("/")[1]
        kinds = (
            ["missing"] if parent == NO_LIVE_CALL else ["own", "missing"] if control else ["own", "foreign", "missing"]
        )
        cases += [pytest.param(route, kind, id=f"{kind} {route.method} {path}") for kind in kinds]
    return cases


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def parents(api, home, other) -> dict[str, dict[str, int]]:
    """For each kind of parent (by the path's first segment): the id of home's, other's and none."""
    contacts = BY_PATH["contacts"]
    mine, theirs = await make(api, contacts, home), await make(api, contacts, other)
    my_cdr, their_cdr = [await seed(api, BY_PATH["cdrs"], c.customer_id, info="a note") for c in (home, other)]
    my_queue, their_queue = [await make(api, BY_PATH["queues"], c) for c in (home, other)]
    at = "2026-01-01 00:00:00"
    hooks = {name: await stored(api, "webhook", caller, {"name": name, "url": "https://127.0.0.1:9/", "events": [],
                                                        "enabled": True, "created_at": at, "updated_at": at})
             for name, caller in (("mine", home), ("theirs", other))}  # fmt: skip
    delivery = {"call_id": 1, "event_id": "evt_1_0", "event_name": "call.initial", "lane": "call:1",
                "status": "delivered", "attempts": 1, "created_at": at, "body": "{}"}  # fmt: skip
    sent = [await stored(api, "delivery", caller, {"webhook_id": hooks[name], "webhook": name, **delivery})
            for name, caller in (("mine", home), ("theirs", other))]  # fmt: skip
    mail = api.app[ACCOUNTS].mailer.message("nested@example.com", "Nested", "Attached.", [recording("nested.mp3", 1)])
    (mailed,) = await api.app[EVENT_LOG].append([mail])
    return {
        "outbox": {"own": mailed.position},
        "webhooks": {"own": "mine", "foreign": "theirs"},
        "deliveries": {"own": sent[0], "foreign": sent[1]},
        "queues": {"own": my_queue["id"], "foreign": their_queue["id"]},
        "users": {"own": home.user_id, "foreign": other.user_id},
        "contacts": {"own": mine["id"], "foreign": theirs["id"]},
        "cdrs": {"own": my_cdr["id"], "foreign": their_cdr["id"]},
        "customers": {"own": home.customer_id, "foreign": other.customer_id},
        "calls": {},
    }


async def stored(api, kind: str, caller, body: dict) -> int:
    """A document of `kind` of the caller's customer, appended as its kind's own event; its id."""
    stored.count = getattr(stored, "count", 0) + 1
    id_ = 900 + stored.count
    made = events_of(kind).made(id_, caller.customer_id, {"id": id_, **body})
    await api.app[EVENT_LOG].append([NewEvent(stream=f"{kind}-{id_}", event=made)])
    return id_


@pytest.mark.parametrize(("route", "kind"), nested_routes())
async def test_a_parent_the_caller_cannot_see_is_a_404_and_its_own_answers(api, home, parents, route, kind):
    parent = template(route.path).removeprefix("/_telephony").split("/")[1]
    named = str(parents[parent].get(kind, MISSING))
    path = path_of(route, id=named, name=named, n="0", **{"from": "+447700900123", "to": "447700900456"})
    body = CONTROL_BODIES.get(template(route.path)) if route.method in ("POST", "PUT") else None
    response = await api.client.request(route.method, path, headers={**home.headers, **CONTROL}, json=body)
    assert route.shape is not None
    expected = route.shape.status if kind == "own" else 404
    assert response.status == expected, (path, await response.text())
    if expected == 404:
        message = (await response.json())["message"]
        assert f" {parents[parent].get(kind, MISSING)} not found" in message
        assert message[0].isupper() and not message.startswith(parent)  # `User 7`, never `users 7`


# --- error messages speak to the user ----------------------------------------------------------------


def body_struct(route: Route) -> tuple[type[msgspec.Struct], bool] | None:
    """The Struct a route's body is (or is a list of), and whether it is a list."""
    body = route.shape.body if route.shape else None
    if typing.get_origin(body) is list:
        return typing.get_args(body)[0], True
    return (body, False) if isinstance(body, type) and issubclass(body, msgspec.Struct) else None


def patterned_fields() -> list:
    """(route, field, description) for every string field with a pattern in a route's body."""
    cases = []
    for route in ROUTES:
        found = body_struct(route)
        if found is None:
            continue
        for f in mi.type_info(found[0]).fields:  # type: ignore[union-attr]
            for info in f.type.types if isinstance(f.type, mi.UnionType) else (f.type,):
                if isinstance(info, mi.Metadata) and isinstance(info.type, mi.StrType) and info.type.pattern:
                    described = (info.extra_json_schema or {}).get("description")
                    cases.append(pytest.param(route, f.encode_name, described,
                                              id=f"{route.method} {template(route.path)} {f.encode_name}"))  # fmt: skip
    return cases


@pytest.mark.parametrize(
    "route", [pytest.param(r, id=f"{r.method} {template(r.path)}") for r in ROUTES if body_struct(r)]
)
async def test_every_pattern_a_body_takes_says_in_words_what_it_expects(route):
    struct, many = body_struct(route)  # type: ignore[misc]
    assert [p for p, said in patterns_of(list[struct] if many else struct).items() if not said] == []


@pytest.mark.parametrize(("route", "name", "described"), patterned_fields())
async def test_a_value_out_of_its_pattern_is_a_400_that_says_the_expected_form(api, home, route, name, described):
    struct, many = body_struct(route)  # type: ignore[misc]
    sent = {name: "not-this!"}
    response = await api.client.request(route.method, path_of(route), headers={**home.headers, **CONTROL},
                                        json=[sent] if many else sent)  # fmt: skip
    body = await response.json()
    assert response.status == 400, body
    assert body["errors"][0] == {"field": name, "message": f"Expected {described}"}
    assert body["message"].startswith(f"{name}: Expected {described}")


BODIES = [pytest.param(r, id=f"{r.method} {template(r.path)}") for r in ROUTES if body_struct(r)]


@pytest.mark.parametrize("route", BODIES)
async def test_every_field_a_body_does_not_take_is_a_400_naming_each_never_dropped(api, home, route):
    struct, many = body_struct(route)  # type: ignore[misc]
    sent = {"no_such_field": 1, "nor_this_one": [2]}
    response = await api.client.request(route.method, path_of(route), headers={**home.headers, **CONTROL},
                                        json=[sent] if many else sent)  # fmt: skip
    body = await response.json()
    assert response.status == 400, body
    unknown = [e for e in body["errors"] if e["message"] == "This field is not allowed here"]
    assert [e["field"] for e in unknown] == list(sent)


@pytest.mark.parametrize("route", BODIES)
async def test_every_wrong_field_of_a_body_is_named_in_one_400(api, home, route):
    struct, many = body_struct(route)  # type: ignore[misc]
    typed = [f for f in msgspec.structs.fields(struct) if not _takes(f.type, {"no": "object"})]
    sent = {f.encode_name: {"no": "object"} for f in typed}
    response = await api.client.request(route.method, path_of(route), headers={**home.headers, **CONTROL},
                                        json=[sent] if many else sent)  # fmt: skip
    body = await response.json()
    assert response.status == 400, body
    named = [e["field"] or "" for e in body["errors"]]
    assert [name for name in sent if not any(f == name or f.startswith((f"{name}.", f"{name}[")) for f in named)] == []
    assert body["message"].count(": ") >= len(sent)


def _takes(type_: object, value: object) -> bool:
    """Whether a field of `type_` takes `value`."""
    try:
        msgspec.convert(value, type_)
    except msgspec.ValidationError:
        return False
    return True


async def test_times_that_do_not_parse_are_told_in_words(api, home):
    clock = await api.client.post("/_telephony/clock", json={"set": "yesterday"}, headers=CONTROL)
    condition = '[{"property": "calldate", "operator": "gt", "value": "soon"}]'
    filtered = await api.client.get("/v1.2/voipstudio/cdrs", headers=home.headers, params={"filter": condition})
    for response in (clock, filtered):
        body = await response.json()
        assert response.status == 400
        assert not any(mark in body["message"] for mark in ("%Y", "time data", "does not match format")), body
    assert "expected a time, YYYY-MM-DD HH:MM:SS, or a date, YYYY-MM-DD" in (await filtered.json())["message"]


# --- include: one rule everywhere ------------------------------------------------------------------


@pytest.mark.parametrize("route", [pytest.param(r, id=f"{r.method} {template(r.path)}") for r in ROUTES])
async def test_an_include_the_route_does_not_offer_is_a_400_naming_it_and_one_it_offers_is_taken(api, home, route):
    offered = route.shape.includes if route.shape else ()
    for include, refused in (("nope", True), *((name, False) for name in offered)):
        response = await api.client.request(route.method, path_of(route), params={"include": include},
                                            headers={**home.headers, **CONTROL})  # fmt: skip
        named = response.status == 400 and (await response.json())["errors"][0]["field"] == "include"
        assert named == refused, (include, response.status, await response.text())
        if refused:
            assert "'nope'" in (await response.json())["message"]


# --- HEAD, OPTIONS and cross-origin answers ----------------------------------------------------------

MOVING = {"/_telephony/clock"}
"""GET answers whose length moves with the (real) clock between two requests."""
ENDLESS = {"/_telephony/events/stream"}
"""GET answers whose body goes on until the client leaves (server-sent events): their headers are compared."""
PATHS = sorted({(path_of(r), tuple(sorted({x.method for x in ROUTES if path_of(x) == path_of(r)}))) for r in ROUTES})
ORIGIN = {"Origin": "https://crm.example.com"}


@pytest.mark.parametrize("route", [pytest.param(r, id=template(r.path)) for r in ROUTES if r.method == "GET"])
async def test_head_answers_as_get_without_the_body(api, home, route):
    headers = {**home.headers, **CONTROL}
    get = await api.client.get(path_of(route), headers=headers)
    body = b"" if template(route.path) in ENDLESS else await get.read()
    get.close()
    head = await api.client.head(path_of(route), headers=headers)
    assert head.status == get.status and await head.read() == b""
    assert head.headers.get("Content-Type") == get.headers.get("Content-Type")
    if template(route.path) not in MOVING:
        assert head.headers.get("Content-Length") == get.headers.get("Content-Length")
        assert get.headers.get("Content-Length") in (None, str(len(body)))


@pytest.mark.parametrize(("path", "methods"), [pytest.param(p, m, id=p) for p, m in PATHS])
async def test_preflights_allow_the_apis_methods_and_refuse_others_saying_why(api, path, methods):
    for method in ("GET", "HEAD", "POST", "PATCH", "DELETE"):
        asked = {**ORIGIN, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": "X-Auth-Token"}
        response = await api.client.options(path, headers=asked)
        assert response.status == 200, (method, await response.text())
        assert response.headers["Access-Control-Allow-Origin"] == ORIGIN["Origin"]
        assert set(response.headers["Access-Control-Allow-Methods"].split(", ")) >= {"GET", "POST", "PATCH", "DELETE"}
    refused = await api.client.options(path, headers={**ORIGIN, "Access-Control-Request-Method": "PUT"})
    assert refused.status == 403 and "'PUT' is not allowed" in (await refused.json())["message"]


@pytest.mark.parametrize(("path", "methods"), [pytest.param(p, m, id=p) for p, m in PATHS])
async def test_an_options_request_that_is_no_preflight_lists_the_paths_methods(api, path, methods):
    response = await api.client.options(path)
    assert response.status == 204
    served = {*methods, "OPTIONS", *(("HEAD",) if "GET" in methods else ())}
    assert set(response.headers["Allow"].split(", ")) == served


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/v1.2/voipstudio/no-such-thing"), ("DELETE", "/v1.2/voipstudio/login")]
)
async def test_errors_outside_any_route_are_readable_across_origins(api, method, path):
    response = await api.client.request(method, path, headers=ORIGIN)
    assert response.status in (404, 405)
    assert response.headers["Access-Control-Allow-Origin"] == ORIGIN["Origin"]
