"""Generic document read models, one per resource kind."""

from . import listing, reads, references, search
from .derived import DerivedTable
from .names import json_path
from .projection import DocumentTable
from .reader import unicode_lower

__all__ = ["DerivedTable", "DocumentTable", "json_path", "listing", "reads", "references", "search", "unicode_lower"]
