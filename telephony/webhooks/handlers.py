"""Webhooks over HTTP, under `/_telephony`, for a root or admin user of the customer (the API's own
tokens, both schemes; other users are refused reading too): configuration, deliveries, the call flow
view, redelivery.

    GET, POST            /_telephony/webhooks
    GET, PATCH, DELETE   /_telephony/webhooks/{name}
    POST                 /_telephony/webhooks/{name}/rotate-secret
    GET                  /_telephony/webhooks/{name}/deliveries      (paged, filtered, sorted)
    GET                  /_telephony/calls/{id}/deliveries          (the call flow view)
    POST                 /_telephony/deliveries/{id}/redeliver
"""

from __future__ import annotations

from typing import Any

import msgspec
from aiohttp import web

from ..api.access import may_change
from ..api.context import meta_of
from ..api.errors import NotFound
from ..api.responses import collection, json_response, raw_collection
from ..api.route_table import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..collections import envelope, parse, properties
from ..documents import listing, reads
from ..documents.conditions import equals
from ..domain.schemas import Delivery, Webhook
from ..keys import PRINCIPAL, READER, SETTINGS, WEBHOOKS
from .configuration import KIND, WebhookCreate, WebhookPatch, shown


class CallFlow(msgspec.Struct, kw_only=True):
    """A call's states in time, and each event it made with every delivery of it."""

    call_id: int
    states: list[dict[str, Any]]
    events: list[dict[str, Any]]


DELIVERY_PROPS = properties(Delivery)
WEBHOOK_PROPS = properties(Webhook)


def _customer(request: web.Request) -> int:
    return request[PRINCIPAL].customer_id


def _name(request: web.Request) -> str:
    return request.match_info["name"]


async def _webhook(request: web.Request, customer_id: int) -> dict[str, Any]:
    found = await reads.bodies_by(request.app[READER], KIND, "name", [_name(request)], customer_id)
    if not found:
        raise NotFound(f"Webhook {_name(request)} not found")
    return msgspec.json.decode(next(iter(found.values())))


async def list_webhooks(request: web.Request) -> web.Response:
    customer_id = _customer(request)
    found = await listing.page(request.app[READER], KIND, equals(customer_id=customer_id),
                               _query(request, WEBHOOK_PROPS))  # fmt: skip
    return collection([shown(document) for document in found.documents()], found.total)


def _query(request: web.Request, props: Any) -> Any:
    api = request.app[SETTINGS].api
    return parse(request.query, props, default_limit=api.default_page_size, max_limit=api.max_page_size)


async def create_webhook(request: web.Request) -> web.Response:
    customer_id = _customer(request)
    body = await read_json(request, WebhookCreate)
    made = await request.app[WEBHOOKS].create(customer_id, body, meta_of(request))
    return json_response({"data": made}, status=201)


async def get_webhook(request: web.Request) -> web.Response:
    return json_response({"data": shown(await _webhook(request, _customer(request)))})


async def patch_webhook(request: web.Request) -> web.Response:
    customer_id = _customer(request)
    body = await read_json(request, WebhookPatch)
    changes = {k: v for k, v in msgspec.structs.asdict(body).items() if v is not msgspec.UNSET}
    changed = await request.app[WEBHOOKS].change(customer_id, _name(request), changes, meta_of(request))
    return json_response({"data": changed})


async def delete_webhook(request: web.Request) -> web.Response:
    await request.app[WEBHOOKS].delete(_customer(request), _name(request), meta_of(request))
    return web.Response(status=204)


async def rotate_secret(request: web.Request) -> web.Response:
    rotated = await request.app[WEBHOOKS].rotate(_customer(request), _name(request), meta_of(request))
    return json_response({"data": rotated})


async def webhook_deliveries(request: web.Request) -> web.Response:
    """A webhook's deliveries, newest first unless sorted otherwise; `filter` on status, call_id,
    event_name (and any other property) as every list."""
    customer_id = _customer(request)
    webhook = await _webhook(request, customer_id)
    found = await listing.page(request.app[READER], "delivery",
                               equals(customer_id=customer_id, webhook_id=webhook["id"]),
                               _query(request, DELIVERY_PROPS))  # fmt: skip
    return raw_collection(envelope(found.joined, found.total))


async def call_deliveries(request: web.Request) -> web.Response:
    customer_id = _customer(request)
    call_id = int(request.match_info["id"])
    flow = await request.app[WEBHOOKS].call_flow(call_id, customer_id)
    if flow is None:
        raise NotFound(f"Call {call_id} not found")
    return json_response({"data": flow})


async def redeliver(request: web.Request) -> web.Response:
    customer_id = _customer(request)
    again = await request.app[WEBHOOKS].redeliver(customer_id, int(request.match_info["id"]), meta_of(request))
    return json_response({"data": again}, status=201)


SEES = may_change("settings", refusal="Access denied: only root and admin users may see webhooks and their deliveries")
CHANGES = may_change("settings", refusal="Access denied: only root and admin users may change webhooks")
"""Webhooks are an admin setting, as on the platform's dashboard, so other users neither change nor see
them (a webhook's URL and its deliveries are the integration's, not an agent's); the refusal says which
was asked."""


def _route(method: str, path: str, handler, shape: Shape) -> Route:
    access = SEES if method == "GET" else CHANGES
    return Route(method, "/_telephony" + path, handler, access, origin="telephony", shape=shape)


def _shape(answer: Any, envelope_: str = "data", **more: Any) -> Shape:
    return Shape(answer, envelope_, tag="webhooks", **more)  # type: ignore[arg-type]


NAMED = r"/webhooks/{name:[^/]+}"
ROUTES = [
    _route("GET", "/webhooks", list_webhooks, _shape(Webhook, "list", listing=WEBHOOK_PROPS, errors=(400,))),
    _route("POST", "/webhooks", create_webhook, _shape(Webhook, status=201, body=WebhookCreate, errors=(400,))),
    _route("GET", NAMED, get_webhook, _shape(Webhook, errors=(404,))),
    _route("PATCH", NAMED, patch_webhook, _shape(Webhook, body=WebhookPatch, errors=(400, 404))),
    _route("DELETE", NAMED, delete_webhook, _shape(None, "none", status=204, errors=(404,))),
    _route("POST", NAMED + "/rotate-secret", rotate_secret, _shape(Webhook, errors=(404,))),
    _route("GET", NAMED + "/deliveries", webhook_deliveries,
           _shape(Delivery, "list", listing=DELIVERY_PROPS, errors=(400, 404))),
    _route("GET", r"/calls/{id:\d{1,18}}/deliveries", call_deliveries, _shape(CallFlow, errors=(404,))),
    _route("POST", r"/deliveries/{id:\d{1,18}}/redeliver", redeliver, _shape(Delivery, status=201, errors=(404,))),
]  # fmt: skip
