"""From declarations to routes: each operation a resource has becomes one route on the table."""

from __future__ import annotations

from collections.abc import Callable

from ..api.routing import Handler, Route
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
                origin="real-platform" if op in resource.added_ops else "spec",
            )
        )
    return out


def registry_routes() -> list[Route]:
    return [route for resource in (*VIEWS, *RESOURCES) for route in routes_of(resource)]
