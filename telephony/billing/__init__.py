"""Billing: tariffs, charges, balances, transactions and monthly invoices."""

from .feeds import FEEDS
from .ledger import CLAIMING
from .service import Billing

__all__ = ["CLAIMING", "FEEDS", "Billing"]
