"""Generic document read models, one per resource kind."""

from . import listing, reads, references, search
from .names import json_path
from .projection import DocumentTable
from .reader import unicode_lower

__all__ = ["DocumentTable", "json_path", "listing", "reads", "references", "search", "unicode_lower"]
