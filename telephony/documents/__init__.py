"""Generic document read models, one per resource kind."""

from . import listing, reads, references, search
from .connections import unicode_lower
from .derived import DerivedTable
from .names import prop_sql
from .projection import DocumentTable

__all__ = ["DerivedTable", "DocumentTable", "listing", "prop_sql", "reads", "references", "search", "unicode_lower"]
