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
    """The customer credited."""
    transaction_id: int
    """The transaction it makes."""
    kind: str
    """`credit` or `adjustment`."""
    amount: str
    """What it adds to the balance (four decimal places; an adjustment may be negative)."""
    currency: str
    """The currency (ISO 4217)."""
    note: str | None
    """What it was for."""
    at: float
    """When it was made (clock time, epoch seconds)."""
    balance_after: str
    """The balance after it (four decimal places)."""
    opening: bool
    """The customer's first event of the balance: its balance record is made."""
    claims: Claims
    """The ids it takes (its transaction's)."""


class InvoiceOpened(Event, frozen=True, kw_only=True, tag="billing.invoice_opened"):
    """The first charge of a month opens its invoice."""

    customer_id: int
    """The customer charged."""
    transaction_id: int
    """The invoice's transaction."""
    period: str
    """The month, `YYYY-MM`."""
    at: float
    """When it opened (clock time, epoch seconds)."""
    currency: str
    """The currency (ISO 4217)."""
    claims: Claims
    """The ids it takes (its transaction's)."""


class ChargedLine(msgspec.Struct, frozen=True, kw_only=True):
    """One charge for one kind of destination: a call of billed `quantity` seconds, an SMS of parts."""

    kind: str
    """`call` or `sms`."""
    destination: str
    """The name of the tariff."""
    quantity: int
    """Seconds of a call, parts of an SMS."""
    amount: str
    """What it costs (four decimal places)."""


class Charged(Event, frozen=True, kw_only=True, tag="billing.charged"):
    """A call's or an SMS's charge, in lines per destination, taken from the balance."""

    customer_id: int
    """The customer charged."""
    transaction_id: int
    """The invoice of the month."""
    period: str
    """The month, `YYYY-MM`."""
    at: float
    """When it was charged (clock time, epoch seconds)."""
    amount: str
    """The whole charge (four decimal places)."""
    lines: list[ChargedLine]
    """The charge by destination."""
    invoice_amount_after: str
    """The month's invoice after it (four decimal places)."""
    balance_after: str
    """The balance after it (four decimal places)."""
    currency: str
    """The currency (ISO 4217)."""
    opening: bool
    """The customer's first event of the balance: its balance record is made."""


class InvoiceLine(msgspec.Struct, frozen=True, kw_only=True):
    """The charges of a month for one kind of destination, folded."""

    kind: str
    """`call` or `sms`."""
    destination: str
    """The name of the tariff."""
    count: int
    """How many calls or SMS."""
    quantity: int
    """Seconds of calls, parts of SMS."""
    amount: str
    """What they cost (four decimal places)."""


class InvoiceClosed(Event, frozen=True, kw_only=True, tag="billing.invoice_closed"):
    """The month is over; its lines are folded from the invoice's own stream."""

    customer_id: int
    """The customer charged."""
    transaction_id: int
    """The invoice's transaction."""
    period: str
    """The month, `YYYY-MM`."""
    at: float
    """When it closed (clock time, epoch seconds)."""
    lines: list[InvoiceLine]
    """The month's charges, by kind and destination."""
    total: str
    """What the month cost (four decimal places)."""


class TariffsSet(Event, frozen=True, kw_only=True, tag="billing.tariffs_set"):
    """The customer's own tariffs, replacing the ones it had (they win over the configured table)."""

    customer_id: int
    """The customer whose tariffs they are."""
    tariffs: list[dict[str, Any]]
    """Each as `[[billing.tariffs]]` in `config.toml` takes it: prefix, name, per_minute, increment, ..."""
    opening: bool
    """The customer's first tariffs: its tariff card is made."""


BILLING_EVENTS = (Credited, InvoiceOpened, Charged, InvoiceClosed, TariffsSet)
