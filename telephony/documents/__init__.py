"""Generic document read models, one per resource kind, each in the SQL of its store (`sqlite/`, `postgresql/`)."""

from . import conditions, listing, reads, references
from .projection import DerivedTable, DocumentTable

__all__ = ["DerivedTable", "DocumentTable", "conditions", "listing", "reads", "references"]
