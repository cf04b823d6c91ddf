"""Fault rules: declared over HTTP or in `[faults]`, kept as events, and acting on API requests (the
middleware) and webhook deliveries (the hook the webhook sender asks)."""

from .handlers import ROUTES
from .middleware import api_faults
from .rules import FaultRules
from .service import Faults

__all__ = ["ROUTES", "FaultRules", "Faults", "api_faults"]
