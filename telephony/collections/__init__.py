"""One collection engine for every list endpoint."""

from .fields import Kind, properties
from .query import envelope, parse

__all__ = ["Kind", "envelope", "parse", "properties"]
