"""The dashboard: the operator's live wallboard of a tenant and its webhooks pages, server-rendered."""

from .routes import ROUTES
from .today import TodayCounts

__all__ = ["ROUTES", "TodayCounts"]
