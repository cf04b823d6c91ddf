"""From declarations to routes: each operation a resource has becomes one route on the table,
with its OpenAPI shape read off the same declaration."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from ..api.access import Access, may_change, may_read
from ..api.route_table import Handler, Route
from ..api.shapes import Shape
from ..domain.dictionaries import Code
from . import handlers
from .catalogue import RESOURCES
from .resource import Op, Resource
from .views import VIEWS

IDS = r"{ids:\d+(?:,\d+)*}"
_METHOD_PATH: dict[Op, tuple[str, str]] = {
    Op.LIST: ("GET", ""),
    Op.CREATE: ("POST", ""),
    Op.BULK_PATCH: ("PATCH", ""),
    Op.DELETE_ALL: ("DELETE", ""),
    Op.DICTIONARIES: ("GET", "/dictionaries"),
    Op.GET: ("GET", "/{id}"),
    Op.UPDATE: ("PATCH", "/{id}"),
    Op.DELETE: ("DELETE", "/{id}"),
    Op.DELETE_MANY: ("DELETE", "/" + IDS),
}
_FACTORIES: dict[Op, Callable[[Resource], Handler]] = {
    Op.LIST: handlers.list_handler,
    Op.CREATE: handlers.create_handler,
    Op.BULK_PATCH: handlers.bulk_patch_handler,
    Op.DELETE_ALL: handlers.delete_all_handler,
    Op.DICTIONARIES: handlers.dictionaries_handler,
    Op.GET: handlers.get_handler,
    Op.UPDATE: handlers.update_handler,
    Op.DELETE: handlers.delete_handler,
    Op.DELETE_MANY: lambda resource: handlers.delete_handler(resource, many=True),
}
READING = frozenset({Op.LIST, Op.GET, Op.DICTIONARIES})
"""The operations that read the resource's ACL module; every other one changes it."""


class DictionaryValue(msgspec.Struct, kw_only=True):
    code: Code
    name: str


class DictionaryEntry(msgspec.Struct, kw_only=True):
    property: str
    values: list[DictionaryValue]


def registry_shape(resource: Resource, op: Op) -> Shape:
    """The shape of one registry operation, read off the resource's declaration."""
    no_content = {Op.DELETE: resource.delete_status, Op.DELETE_MANY: resource.delete_many_status,
                  Op.DELETE_ALL: resource.delete_all_status}  # fmt: skip
    if op in no_content:
        return Shape(envelope="none", status=no_content[op], errors=() if op is Op.DELETE_ALL else (404,),
                     tag=resource.module)  # fmt: skip
    if op is Op.DICTIONARIES:
        return Shape(DictionaryEntry, "list", tag=resource.module)
    if op is Op.LIST:
        return Shape(resource.model, "list", listing=resource.props, includes=resource.includes, errors=(400,),
                     tag=resource.module)  # fmt: skip
    if op is Op.BULK_PATCH:
        return Shape(resource.model, "list", body=list[resource.bulk_body], errors=(400, 404),  # type: ignore[name-defined]
                     tag=resource.module)  # fmt: skip
    body = {Op.CREATE: resource.create, Op.UPDATE: resource.patch}.get(op)
    errors = {Op.CREATE: (400,), Op.UPDATE: (400, 404), Op.GET: (404,)}[op]
    status = 201 if op is Op.CREATE else 200
    return Shape(resource.model, body=body, status=status, includes=resource.includes, errors=errors,
                 tag=resource.module)  # fmt: skip


def access_of(resource: Resource, op: Op) -> Access:
    """Who may run `op` on `resource`: a user whose roles read, or change, the resource's module."""
    return may_read(resource.module) if op in READING else may_change(resource.module)


def routes_of(resource: Resource) -> list[Route]:
    out = []
    for op in sorted(resource.all_ops, key=lambda o: list(_METHOD_PATH).index(o)):
        method, suffix = _METHOD_PATH[op]
        suffix = suffix.replace("{id}", "{" + resource.id_name + ":" + resource.id_pattern + "}")
        out.append(
            Route(
                method,
                f"/{resource.path}{suffix}",
                _FACTORIES[op](resource),
                access_of(resource, op),
                origin="real-platform"
                if op in resource.added_ops
                else "telephony"
                if op in resource.own_ops
                else "spec",
                shape=registry_shape(resource, op),
            )
        )
    return out


def registry_routes() -> list[Route]:
    return [route for resource in (*VIEWS, *RESOURCES) for route in routes_of(resource)]
