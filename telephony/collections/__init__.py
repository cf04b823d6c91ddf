"""One collection engine for every list endpoint."""

from .fields import Kind, properties
from .query import ListQuery, envelope, parse

__all__ = ["Kind", "ListQuery", "envelope", "parse", "properties"]
