"""Generic document read models, one per resource kind."""

from . import listing, reads, references
from .projection import DocumentTable, json_path
from .reader import unicode_lower

__all__ = ["DocumentTable", "json_path", "listing", "reads", "references", "unicode_lower"]
