"""Generic document read models, one per resource kind."""

from . import listing, reads
from .projection import DocumentTable, json_path

__all__ = ["DocumentTable", "json_path", "listing", "reads"]
