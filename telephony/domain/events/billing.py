"""The events of the ledger: credits, charges, monthly invoices and a customer's own tariffs.

Streams: `billing-<customer>` (credits, tariffs) and `invoice-<transaction id>` (a month's invoice,
its charges and its close). Amounts are texts of four decimal places. Each event that moves the
balance carries the balance after it (`opening` on the first), so the read models are plain copies
and a replay gives the same figures whatever the configuration says by then.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .base import Claims, Event


class Credited(Event, frozen=True, kw_only=True, tag="billing.credited"):
    """A top-up (`credit`) or an `adjustment` (either sign): a completed transaction."""

    customer_id: int
    transaction_id: int
    kind: str
    amount: str
    currency: str
    note: str | None
    at: float
    balance_after: str
    opening: bool
    """The customer's first event of the balance: its balance record is made."""
    claims: Claims


class InvoiceOpened(Event, frozen=True, kw_only=True, tag="billing.invoice_opened"):
    """The first charge of a month opens its invoice."""

    customer_id: int
    transaction_id: int
    period: str
    """The month, `YYYY-MM`."""
    at: float
    currency: str
    claims: Claims


class ChargedLine(msgspec.Struct, frozen=True, kw_only=True):
    """One charge for one kind of destination: a call of billed `quantity` seconds, an SMS of parts."""

    kind: str
    """`call` or `sms`."""
    destination: str
    """The name of the tariff."""
    quantity: int
    amount: str


class Charged(Event, frozen=True, kw_only=True, tag="billing.charged"):
    """A call's or an SMS's charge, in lines per destination, taken from the balance."""

    customer_id: int
    transaction_id: int
    """The invoice of the month."""
    period: str
    at: float
    amount: str
    lines: list[ChargedLine]
    invoice_amount_after: str
    balance_after: str
    currency: str
    opening: bool


class InvoiceLine(msgspec.Struct, frozen=True, kw_only=True):
    """The charges of a month for one kind of destination, folded."""

    kind: str
    destination: str
    count: int
    quantity: int
    amount: str


class InvoiceClosed(Event, frozen=True, kw_only=True, tag="billing.invoice_closed"):
    """The month is over; its lines are folded from the invoice's own stream."""

    customer_id: int
    transaction_id: int
    period: str
    at: float
    lines: list[InvoiceLine]
    total: str


class TariffsSet(Event, frozen=True, kw_only=True, tag="billing.tariffs_set"):
    """The customer's own tariffs, replacing the ones it had (they win over the configured table)."""

    customer_id: int
    tariffs: list[dict[str, Any]]
    """Each as `[[billing.tariffs]]` in `config.toml` takes it: prefix, name, per_minute, increment, ..."""
    opening: bool


BILLING_EVENTS = (Credited, InvoiceOpened, Charged, InvoiceClosed, TariffsSet)
