"""A NUL character anywhere in a request, on every route of the route table: never a 500; a path
parameter, a query parameter or a header holding one is a 400 naming it on both stores, a body holding
one is a 400 naming the field on PostgreSQL (SQLite keeps the text)."""

from __future__ import annotations

import asyncio
import base64
import re

import pytest
from yarl import URL

from telephony import wiring

from .test_errors import assert_error_body

ADMIN = {"email": "admin@example.com", "password": "change-me-now"}
MESSAGE = "Text cannot hold a NUL character (\\u0000)"
QUERY = ("sort", "dir", "limit", "page", "start", "q", "to", "include", "group_by", "events", "customer_id", "call")
"""The query parameters the handlers read (and paging's), each tried on every route."""
PARAMETER = re.compile(r"\{(\w+)\}")


def routes() -> list[tuple[str, str]]:
    """Every method and path of the route table (the streams too: a NUL is refused before they start)."""
    return [(line.split()[0], line.split()[1]) for line in wiring.route_listing("voipstudio")]


async def headers_for(client, control_headers) -> dict[str, str]:
    login = await client.post("/v1.2/voipstudio/login", json=ADMIN)
    return {"X-Auth-Token": (await login.json())["user_token"], **control_headers}


async def refused(response, field: str, *, or_not_found: bool = False) -> None:
    """A 400 naming `field`; `or_not_found`: or a 404, when the route's pattern takes no such value."""
    if or_not_found and response.status == 404:
        return
    assert response.status == 400, (response.url, await response.text())
    body = await response.json()
    assert_error_body(body)
    assert body["errors"] == [{"field": field, "message": MESSAGE}], response.url


async def test_a_nul_in_a_path_or_query_parameter_of_any_route_is_a_400_naming_it_or_no_route(client, control_headers):
    headers = await headers_for(client, control_headers)
    for method, path in routes():
        for name in PARAMETER.findall(path):
            where = PARAMETER.sub(lambda m, name=name: "a%00" if m[1] == name else "1", path)
            await refused(await client.request(method, URL(where, encoded=True), headers=headers), name,
                          or_not_found=True)  # fmt: skip
        plain = PARAMETER.sub("1", path)
        for name in QUERY:
            where = URL(f"{plain}?{name}=a%00", encoded=True)
            await refused(await client.request(method, where, headers=headers), name)


async def raw_status(client, request: bytes) -> int:
    """The status of a request sent as `request`'s bytes (a client library refuses a NUL in a header)."""
    reader, writer = await asyncio.open_connection(client.server.host, client.server.port)
    writer.write(request)
    await writer.drain()
    status = int((await asyncio.wait_for(reader.readline(), 30)).split()[1])
    writer.close()
    return status


@pytest.mark.parametrize("header", ["X-Auth-Token", "User-Agent", "X-Telephony-Position", "Idempotency-Key"])
async def test_a_nul_in_a_header_is_a_400_and_reaches_no_store(client, control_headers, header):
    token = (await headers_for(client, control_headers))["X-Auth-Token"]
    login = b'{"email": "admin@example.com", "password": "change-me-now"}'
    for method, path, body in [("GET", "/v1.2/voipstudio/contacts", b""), ("POST", "/v1.2/voipstudio/login", login)]:
        sent = (
            f"{method} {path} HTTP/1.1\r\nHost: x\r\nX-Auth-Token: {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{header}: a\x00b\r\nConnection: close\r\n\r\n"
        ).encode() + body
        assert await raw_status(client, sent) == 400, (method, path)


async def test_a_nul_in_any_body_is_never_a_500_and_a_400_naming_the_field_on_postgresql(client, control_headers,
                                                                                     settings):  # fmt: skip
    headers = await headers_for(client, control_headers)
    bodies = [
        ("application/json", b'{"name": "a\\u0000"}', "name"),
        ("text/plain", b'{"name": "a\\u0000"}', "name"),
        ("application/x-ndjson", b'{"resource": "contact"}\n{"data": {"name": "\\u0000"}}\n', "line 2.data.name"),
    ]  # fmt: skip
    for method, path in routes():
        if method not in ("POST", "PATCH", "PUT") or path.startswith("/_telephony/dashboard"):
            continue
        for media, body, field in bodies:
            sent = {**headers, "Content-Type": media}
            response = await client.request(method, PARAMETER.sub("1", path), data=body, headers=sent)
            if settings.eventlog.url:
                await refused(response, field)
            else:
                assert response.status < 500, (method, path, media, await response.text())


async def test_a_nul_in_a_dashboard_form_is_a_400_page_naming_the_field(client):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    for body, field in ((b"email=admin%40example.com%00&password=x", "email"), (b"pass%00word=x", "pass")):
        response = await client.post("/_telephony/dashboard/login", data=body, headers=form)
        text = await response.text()
        assert response.status == 400 and "NUL character" in text and field in text, text


async def test_basic_credentials_whose_token_holds_a_nul_are_a_401_on_both_stores(client):
    secret = base64.b64encode(b"100001:a\x00b").decode()
    response = await client.get("/v1.2/voipstudio/contacts", headers={"Authorization": f"Basic {secret}"})
    assert response.status == 401, await response.text()
    assert_error_body(await response.json())
