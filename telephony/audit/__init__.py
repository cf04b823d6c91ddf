"""Audit of a log: the hash chain, replay equality, and point-in-time copies.

`verify_chain` recomputes every event's hash (`chain`); `verify_projections` rebuilds every projection
from the log into a scratch database and compares it with the live tables, both read in one snapshot
(`tables`); `fold_memory` folds the in-memory ones, as a server compares its live ones with such a fold
(`memory`); `replay_into` copies the log up to a position or time, from SQLite or PostgreSQL, into a new
data dir and rebuilds its projections (`copies`)."""

from .chain import Broken, Chain, Problem, verify_chain
from .copies import CARRIED_FILES, replay_into
from .memory import fold_memory
from .tables import CHAIN_COST, split, verify_projections

__all__ = [
    "CARRIED_FILES",
    "CHAIN_COST",
    "Broken",
    "Chain",
    "Problem",
    "fold_memory",
    "replay_into",
    "split",
    "verify_chain",
    "verify_projections",
]
