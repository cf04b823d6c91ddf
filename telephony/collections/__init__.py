"""One collection engine for every list endpoint."""

from .filters import Kind, properties
from .query import envelope, parse

__all__ = ["Kind", "envelope", "parse", "properties"]
