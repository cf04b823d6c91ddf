"""The tables that wire the app together: its projections, API routes and control routes.

Each capability contributes its parts here, so `create_app`, the CLI (`routes`, `replay`,
`verify`) and the tests all see the same set.
"""

from __future__ import annotations

from .api import control
from .api.routing import Route
from .eventlog.upcasting import Upcasters
from .projections import Projection, Projections


def projections() -> list[Projection]:
    return []


def upcasters() -> Upcasters:
    return Upcasters()


def projection_set() -> Projections:
    return Projections(projections(), upcasters())


def api_routes() -> list[Route]:
    return []


def control_routes() -> list[Route]:
    return [*control.ROUTES]


def route_listing(service: str) -> list[str]:
    from .api.routing import listing

    return listing(api_routes(), control_routes(), service)
