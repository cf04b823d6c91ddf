"""The route table and the one pipeline that wraps every API handler.

A `Route` is data: method, path (relative to `/v1.x/<service>`), handler, who may call it (its
`Access`), where it comes from (`spec` or a `real-platform` addition), and what it takes and answers
(its `Shape`, for the OpenAPI document). `mount` adds every route under both version prefixes through
`pipeline`, which sets the API version and authenticates before the handler runs, refuses what no
route takes: a number beyond 64 bits in a numbered part of the path (one whose pattern names digits,
`\\d`: ids, lists of ids, phone numbers; 404), an `include` its shape does not offer (400), and then
a caller the route's access does not let in (403). Free text in a path (an API token, a webhook's
name) is never read as a number.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from aiohttp import web

from ..keys import API_VERSION, AUTHENTICATE
from .access import Access
from .errors import BadRequest, NotFound
from .shapes import Shape

_BEYOND_64_BITS = re.compile(r"[0-9]{19,}")
"""A number in a path too long for any stored id (ids are 64-bit): nothing has it."""
DIGIT = "[0-9]"
"""What `\\d` means in a route path: an ASCII digit. aiohttp matches paths with `re`, whose `\\d` is any
Unicode digit, and `int()` reads those too: `/contacts/١` would be contact 1."""
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Authenticate = Callable[[web.Request], Awaitable[None]]
VERSIONS = ("v1.1", "v1.2")


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    handler: Handler
    access: Access
    """Who may call it, checked by the pipeline (see `access.py`)."""
    origin: Literal["spec", "real-platform", "telephony", "control"] = "spec"
    """`spec`; `real-platform` (added by real-platform.md); `telephony` (this server's own addition)."""
    versions: tuple[str, ...] = VERSIONS
    shape: Shape | None = field(default=None, compare=False)
    """What it takes and answers, for the OpenAPI document; documentation, not part of its identity."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", ascii_digits(self.path))

    @property
    def auth(self) -> bool:
        """Whether the pipeline asks for credentials (a user's, or the operator's control key)."""
        return self.access.authenticated or self.access.kind == "control"


def ascii_digits(path: str) -> str:
    """A route path whose patterns match ASCII digits only: every `\\d` becomes `[0-9]`."""
    return path.replace("\\d", DIGIT)


async def _authenticate_user(request: web.Request) -> None:
    await request.app[AUTHENTICATE](request)


def pipeline(route: Route, version: str, guard: Authenticate | None = None) -> Handler:
    """Wrap a handler with the version tag, the authentication its access asks (a user's; the
    operator's by `guard`), the path's checks and its access check."""

    numbered = numbered_parts(route.path)
    access = route.access
    authenticate = guard if access.kind == "control" else _authenticate_user if access.authenticated else None
    if access.kind == "control" and guard is None:
        raise ValueError(f"{route.method} {route.path}: an operator's route is mounted with the control key's guard")
    checked = access.kind in ("module", "root")

    async def handle(request: web.Request) -> web.StreamResponse:
        request[API_VERSION] = version
        if authenticate is not None:
            await authenticate(request)
        if numbered and any(_BEYOND_64_BITS.search(request.match_info.get(name, "")) for name in numbered):
            raise NotFound("Resource not found")
        if "include" in request.query:
            _check_includes(request, route.shape.includes if route.shape else ())
        if checked:
            access.check(request)
        return await route.handler(request)

    handle.__name__ = getattr(route.handler, "__name__", "handler")
    return handle


def included(request: web.Request) -> set[str]:
    """The related records `include=a,b` asks to embed (the pipeline has checked the route has them)."""
    return {part.strip() for part in request.query.get("include", "").split(",") if part.strip()}


def _check_includes(request: web.Request, offered: tuple[str, ...]) -> None:
    """One rule for every route: an `include` the route's answer does not offer is a 400 naming it."""
    unknown = included(request) - set(offered)
    if unknown:
        allowed = ", ".join(offered) or "nothing"
        raise BadRequest.field("include", f"Unknown include '{sorted(unknown)[0]}' (allowed: {allowed})")


def version_prefix(version: str, service: str) -> str:
    return f"/{version}/{service}"


def _add(app: web.Application, method: str, path: str, handler: Handler) -> None:
    """One route; a GET also answers HEAD (RFC 9110: the same status and headers, without the body,
    which aiohttp leaves out of any answer to HEAD)."""
    app.router.add_route(method, path, handler)
    if method == "GET":
        app.router.add_route("HEAD", path, handler)


def resolving_order(routes: Iterable[Route]) -> list[Route]:
    """Routes as the router finds them fastest: each path's methods together (one resource per path),
    fixed paths before patterned ones. A path's candidates are tried in the order they were added,
    and `/cdrs` would otherwise be tried against `/cdrs/{id}.trace` and its kin first; a fixed path
    never competes with a pattern for priority, since a pattern of this API never matches a path
    another route names outright."""
    by_path: dict[str, list[Route]] = {}
    for route in routes:
        by_path.setdefault(route.path, []).append(route)
    groups = sorted(by_path.items(), key=lambda item: "{" in item[0])
    return [route for _, group in groups for route in group]


def mount(app: web.Application, routes: Iterable[Route], service: str) -> None:
    ordered = resolving_order(routes)
    for version in VERSIONS:
        for route in ordered:
            if version in route.versions:
                _add(app, route.method, version_prefix(version, service) + route.path, pipeline(route, version))


def mount_control(app: web.Application, routes: Iterable[Route], guard: Authenticate) -> None:
    """The routes under `/_telephony`: the operator's (`CONTROL`) behind `guard`, the others (a
    customer's own, such as its webhooks) as their access says."""
    for route in resolving_order(routes):
        _add(app, route.method, route.path, pipeline(route, "control", guard))


_PATTERN = re.compile(r"\{(\w+):([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")


def numbered_parts(path: str) -> tuple[str, ...]:
    """The names of a route path's parts that hold numbers: those whose pattern names digits."""
    return tuple(name for name, pattern in _PATTERN.findall(path) if DIGIT in pattern)


def template(path: str) -> str:
    """A route path without its regular expressions: `/users/{id:\\d+}` is `/users/{id}`."""
    return _PATTERN.sub(r"{\1}", path)


def listing(routes: Iterable[Route], control: Iterable[Route], service: str) -> list[str]:
    """Every method and path, one line each, as `telephony routes` prints them."""
    lines = []
    for route in routes:
        mark = "" if route.origin == "spec" else f"  [{route.origin}]"
        for version in route.versions:
            lines.append(f"{route.method:<7}{version_prefix(version, service)}{template(route.path)}{mark}")
    lines.extend(f"{r.method:<7}{template(r.path)}  [{r.origin}]" for r in control)
    return lines
