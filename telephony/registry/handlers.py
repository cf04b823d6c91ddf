"""The generic handlers: one factory per operation, closed over a `Resource` declaration."""

from __future__ import annotations

import msgspec
from aiohttp import web

from ..api.context import meta_of, principal
from ..api.errors import NotFound
from ..api.responses import collection, raw_collection, single
from ..api.wire import read_json
from ..clock import wire_time
from ..collections import envelope, parse
from ..documents import listing, reads
from ..documents.conditions import Condition, both, equals
from ..domain import phone
from ..domain.bodies import echoes
from ..domain.dictionaries import resource_dictionaries
from ..domain.nouns import not_found
from ..keys import CLOCK, EVENT_LOG, PAGE_CACHE, READER, REFERENCES, SETTINGS
from . import decisions
from .attachments import Store, after_storing, attached
from .coercion import fields_of
from .rendering import render_many, render_one
from .resource import Resource

_decode = msgspec.json.decode


def _id(resource: Resource, request: web.Request):
    raw = request.match_info[resource.id_name]
    return phone.e164(raw) if resource.text_ids else int(raw)


def _ids(request: web.Request) -> list[int]:
    return [int(part) for part in request.match_info["ids"].split(",")]


def scoped(resource: Resource, request: web.Request, customer_id: int) -> Condition:
    """The rows a list may show: the caller's customer's, narrowed by a nested path if any."""
    owned = equals(customer_id=customer_id)
    return owned if resource.scope is None else both(owned, resource.scope(request, customer_id))


async def _page(request: web.Request, resource: Resource, q, customer_id: int, generation: int) -> listing.Page:
    """A page of the list, read with what the cache knows of it; a nested view's parent is read with it
    (404 when it is not the caller's)."""
    scope, reader, cache = scoped(resource, request, customer_id), request.app[READER], request.app[PAGE_CACHE]
    if resource.scope is None:
        total, after = cache.recall(resource.kind, customer_id, q)
        found = await listing.page(
            reader, resource.kind, scope, q, counted=customer_id, total=total, after=after, searched=resource.searched
        )
        cache.learn(resource.kind, customer_id, q, generation, found)
        return found
    parent = resource.parent
    if parent is None:
        return await listing.page(reader, resource.kind, scope, q, searched=resource.searched)
    value = request.match_info[parent.param]
    under = await listing.page_under(
        reader, resource.kind, scope, q, listing.one_of(parent.kind, parent.key, int(value), customer_id)
    )
    if under is None:
        raise NotFound(not_found(parent.kind, value))
    return under


def list_handler(resource: Resource):
    async def handle(request: web.Request) -> web.Response:
        who = principal(request)
        plain = resource.scope is None and not resource.includes
        cache, key = request.app[PAGE_CACHE], (resource.kind, who.customer_id, request.query_string)
        if plain and (page := cache.get(key)) is not None:
            return raw_collection(page)  # kept only after its query string was parsed and served
        generation = cache.generation(resource.kind)
        api = request.app[SETTINGS].api
        q = parse(request.query, resource.props, default_limit=api.default_page_size, max_limit=api.max_page_size)
        found = await _page(request, resource, q, who.customer_id, generation)
        if resource.includes:
            return collection(await render_many(request, resource, found.documents()), found.total)
        payload = envelope(found.joined, found.total)
        if plain:
            cache.put(key, generation, payload, q.offset)
        return raw_collection(payload)

    return handle


async def _document(request: web.Request, resource: Resource, id_, customer_id: int) -> dict:
    body = await reads.body(request.app[READER], resource.kind, id_, customer_id)
    if body is None:
        raise NotFound(not_found(resource.kind, id_))
    return _decode(body)


def get_handler(resource: Resource):
    async def handle(request: web.Request) -> web.Response:
        who = principal(request)
        id_ = _id(resource, request)
        document = await _document(request, resource, id_, who.customer_id)
        return single(request, await render_one(request, resource, document), f"/{resource.path}/{id_}")

    return handle


async def _sent_fields(request: web.Request, resource: Resource, *, creating: bool) -> tuple[dict, dict, Store]:
    """The fields a create or PATCH body sets, the read-only ones it sends back, and the decision storing
    any file it uploads."""
    body = await read_json(request, resource.create if creating else resource.patch, resource.validate)  # type: ignore[arg-type]
    fields = fields_of(resource, body, creating=creating)
    file_fields, store = attached(resource, body)
    return {**fields, **file_fields}, echoes(body), store


def create_handler(resource: Resource):
    assert resource.create is not None

    async def handle(request: web.Request) -> web.Response:
        who = principal(request)
        fields, _, store = await _sent_fields(request, resource, creating=True)
        now = wire_time(request.app[CLOCK].now())
        decision = decisions.create(resource, who.customer_id, fields, now)
        await request.app[EVENT_LOG].transact(after_storing(store, decision), meta_of(request))
        document = decision.result
        path = f"/{resource.path}/{document['id']}"
        return single(request, await render_one(request, resource, document), path, status=201)

    return handle


def update_handler(resource: Resource):
    """Answers the document the decision left, not a read after it (a DELETE may follow at once)."""

    async def handle(request: web.Request) -> web.Response:
        who = principal(request)
        id_ = _id(resource, request)
        changes, echoed, store = await _sent_fields(request, resource, creating=False)
        now = wire_time(request.app[CLOCK].now())
        decision = decisions.update(resource, who.customer_id, {id_: changes}, {id_: echoed}, now)
        await request.app[EVENT_LOG].transact(after_storing(store, decision), meta_of(request))
        (document,) = decision.result
        return single(request, await render_one(request, resource, document), f"/{resource.path}/{id_}")

    return handle


def bulk_patch_handler(resource: Resource):
    assert resource.bulk_body is not None

    async def handle(request: web.Request) -> web.Response:
        who = principal(request)
        items = await read_json(request, list[resource.bulk_body])  # type: ignore[name-defined]
        changes = {item.id: fields_of(resource, item, creating=False) for item in items}
        echoed = {item.id: echoes(item) for item in items}
        decision = decisions.update(resource, who.customer_id, changes, echoed, wire_time(request.app[CLOCK].now()))
        await request.app[EVENT_LOG].transact(decision, meta_of(request))
        return collection(await render_many(request, resource, decision.result))

    return handle


def delete_handler(resource: Resource, *, many: bool = False):
    status = resource.delete_many_status if many else resource.delete_status

    async def handle(request: web.Request) -> web.Response:
        who = principal(request)
        ids = _ids(request) if many else [_id(resource, request)]
        decide = decisions.delete(resource, who.customer_id, ids, request.app[REFERENCES])
        await request.app[EVENT_LOG].transact(decide, meta_of(request))
        return web.Response(status=status)

    return handle


def delete_all_handler(resource: Resource):
    async def handle(request: web.Request) -> web.Response:
        who = principal(request)
        decide = decisions.clear(resource, who.customer_id, request.app[REFERENCES])
        await request.app[EVENT_LOG].transact(decide, meta_of(request))
        return web.Response(status=resource.delete_all_status)

    return handle


def dictionaries_handler(resource: Resource):
    async def handle(request: web.Request) -> web.Response:
        entries = resource_dictionaries(resource.path)
        return collection([{"property": prop, "values": values} for prop, values in entries.items()])

    return handle
