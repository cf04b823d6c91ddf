"""Generic document read models, one per resource kind."""

from . import listing, reads, references
from .projection import DocumentTable, json_path

__all__ = ["DocumentTable", "json_path", "listing", "reads", "references"]
