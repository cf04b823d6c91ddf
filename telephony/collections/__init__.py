"""One collection engine for every list endpoint."""

from ..documents.listing import page_of as fetch  # for accounts/, which lists by table name until it moves
from .fields import Kind, properties
from .query import ListQuery, envelope, parse

__all__ = ["Kind", "ListQuery", "envelope", "fetch", "parse", "properties"]
