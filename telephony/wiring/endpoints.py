"""Every endpoint the app serves: the API's routes and the operator's, as each capability declares them."""

from __future__ import annotations

from .. import dashboard, faults, openapi, sip, stream
from ..accounts import control as accounts_control
from ..accounts import customer, login, tokens
from ..api import control, index, scenario_schema
from ..api.route_table import Route, listing
from ..billing import handlers as billing_handlers
from ..calls import handlers as calls_handlers
from ..calls import simulate
from ..messaging import faxes
from ..messaging import handlers as messaging_handlers
from ..registry import calltracking, files, importing, provisioning, statements
from ..registry.resource_routes import registry_routes
from ..webhooks import handlers as webhook_handlers


def api_routes() -> list[Route]:
    """The routes under `/v1.1/<service>` and `/v1.2/<service>`."""
    return [*login.ROUTES, *tokens.ROUTES, *customer.ROUTES, *files.ROUTES, *registry_routes(), *statements.ROUTES,
            *calltracking.ROUTES, *calls_handlers.ROUTES, *messaging_handlers.ROUTES,
            *billing_handlers.ROUTES]  # fmt: skip


def control_routes() -> list[Route]:
    """The routes under `/_telephony`: the operator's, and a customer's own (its webhooks)."""
    return [*index.ROUTES, *control.ROUTES, *accounts_control.ROUTES, *provisioning.ROUTES, *importing.ROUTES,
            *simulate.ROUTES, *billing_handlers.CONTROL_ROUTES, *faxes.ROUTES, *messaging_handlers.CONTROL_ROUTES,
            *webhook_handlers.ROUTES, *dashboard.ROUTES, *faults.ROUTES, *stream.ROUTES,
            *sip.ROUTES, *openapi.ROUTES, *scenario_schema.ROUTES]  # fmt: skip


def route_listing(service: str) -> list[str]:
    """Every method and path, one line each, as `telephony routes` prints them."""
    return listing(api_routes(), control_routes(), service)
