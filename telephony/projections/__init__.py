"""Read models built from the event log."""

from .base import Projection
from .runner import Projections

__all__ = ["Projection", "Projections"]
