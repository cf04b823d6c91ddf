"""The wiring: what the app is made of (its read models, its endpoints) and the bootstrap that opens
its resources, builds its services and attaches what follows the log, in one visible order."""

from .bootstrap import end_streams, reactors, resources, timer_sources
from .endpoints import api_routes, control_routes, route_listing
from .read_models import fed_kinds, memory_projections, projection_set, projections, references

__all__ = ["api_routes", "control_routes", "end_streams", "fed_kinds", "memory_projections", "projection_set",
           "projections", "reactors", "references", "resources", "route_listing", "timer_sources"]  # fmt: skip
