"""The ledger: credits, charges and monthly invoices, decided inside the writer's transaction.

Events:
    `billing.credited` {customer_id, transaction_id, kind, amount, currency, note, at, balance_after}
        on `billing-<customer>`: a top-up (`credit`) or an `adjustment` (either sign)
    `billing.invoice_opened` {customer_id, transaction_id, period, at} on `invoice-<id>`: the first
        charge of a month opens its invoice
    `billing.charged` {customer_id, transaction_id, period, at, amount, lines, invoice_amount_after,
        balance_after} on `invoice-<id>`: a call's or an SMS's charge, in lines per destination
    `billing.invoice_closed` {customer_id, transaction_id, period, at, lines, total} on `invoice-<id>`:
        the month is over; its lines are folded from the invoice's own stream
    `billing.tariffs_set` {customer_id, tariffs} on `billing-<customer>`: the customer's own tariffs

Amounts are texts of four decimal places. Each event that moves the balance carries the balance
after it (`opening` on the first), so the read models are plain copies and a replay gives the same
figures whatever the configuration says by then.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import msgspec

from ..accounts import customer_exists
from ..documents import reads
from ..domain.billing import ZERO, money, period_of
from ..domain.errors import Unknown
from ..eventlog import Decision, NewEvent, store
from ..projections.sequences import next_id

CREDITED = "billing.credited"
INVOICE_OPENED = "billing.invoice_opened"
CHARGED = "billing.charged"
INVOICE_CLOSED = "billing.invoice_closed"
TARIFFS_SET = "billing.tariffs_set"
TYPES = (CREDITED, INVOICE_OPENED, CHARGED, INVOICE_CLOSED, TARIFFS_SET)
CLAIMING = (CREDITED, INVOICE_OPENED)
"""The billing events that claim a transaction id."""
Now = Callable[[], float]


@dataclass(frozen=True)
class Line:
    """One charge for one kind of destination: a call of billed `quantity` seconds, an SMS of parts."""

    kind: str
    destination: str
    quantity: int
    amount: Decimal


def _customer_stream(customer_id: int) -> str:
    return f"billing-{customer_id}"


def _invoice_stream(transaction_id: int) -> str:
    return f"invoice-{transaction_id}"


def balance(conn: sqlite3.Connection, customer_id: int) -> tuple[Decimal, bool]:
    """A customer's balance, and whether it has one on record yet."""
    found = reads.documents(conn, "balance", [customer_id], customer_id).get(customer_id)
    return (money(found["balance"]), True) if found else (ZERO, False)


def credit(customer_id: int, amount: Decimal, currency: str, note: str | None, kind: str, now: Now
           ) -> Decision[dict[str, Any]]:  # fmt: skip
    """A top-up or an adjustment: a completed transaction of `amount`, added to the balance."""

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], dict[str, Any]]:
        if not customer_exists(conn, customer_id):
            raise Unknown(f"Customer {customer_id} not found")
        before, known = balance(conn, customer_id)
        transaction_id = next_id(conn, "transaction")
        data = {"customer_id": customer_id, "transaction_id": transaction_id, "kind": kind, "amount": str(amount),
                "currency": currency, "note": note, "at": now(), "balance_after": str(before + amount),
                "opening": not known, "claims": {"transaction": [transaction_id]}}  # fmt: skip
        return [NewEvent(stream=_customer_stream(customer_id), type=CREDITED, data=data)], data

    return Decision(decide)


def charged(conn: sqlite3.Connection, customer_id: int, currency: str, at: float, lines: Iterable[Line]
            ) -> list[NewEvent]:  # fmt: skip
    """The events that charge `lines` to the month's invoice (opened by the first charge of the month)
    and take them from the balance; none when they cost nothing."""
    lines = [line for line in lines if line.amount > 0]
    if not lines:
        return []
    period = period_of(at)
    invoices = [t for t in reads.having(conn, "transaction", customer_id, "period", period) if t["type"] == "invoice"]
    events = []
    if invoices:
        transaction_id, so_far = invoices[0]["id"], money(invoices[0]["amount"])
    else:
        transaction_id, so_far = next_id(conn, "transaction"), ZERO
        opened = {"customer_id": customer_id, "transaction_id": transaction_id, "period": period, "at": at,
                  "currency": currency, "claims": {"transaction": [transaction_id]}}  # fmt: skip
        events.append(NewEvent(stream=_invoice_stream(transaction_id), type=INVOICE_OPENED, data=opened))
    total = sum((line.amount for line in lines), ZERO)
    before, known = balance(conn, customer_id)
    data = {"customer_id": customer_id, "transaction_id": transaction_id, "period": period, "at": at,
            "amount": str(total), "lines": [_line(line) for line in lines],
            "invoice_amount_after": str(so_far - total), "balance_after": str(before - total),
            "currency": currency, "opening": not known}  # fmt: skip
    return [*events, NewEvent(stream=_invoice_stream(transaction_id), type=CHARGED, data=data)]


def _line(line: Line) -> dict[str, Any]:
    return {"kind": line.kind, "destination": line.destination, "quantity": line.quantity, "amount": str(line.amount)}


def close_due(now: Now) -> Decision[list[int]]:
    """Close every open invoice of a month before the clock's: its lines folded from its charges. The
    ids of the invoices closed."""

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], list[int]]:
        at = now()
        current = period_of(at)
        events = []
        for customer_id, body in reads.every(conn, "transaction"):
            invoice = msgspec.json.decode(body)
            if invoice["type"] != "invoice" or invoice["result"] != "pending" or invoice["period"] >= current:
                continue
            lines, total = _folded(store.stream_content(conn, _invoice_stream(invoice["id"])))
            data = {"customer_id": customer_id, "transaction_id": invoice["id"], "period": invoice["period"],
                    "at": at, "lines": lines, "total": str(total)}  # fmt: skip
            events.append(NewEvent(stream=_invoice_stream(invoice["id"]), type=INVOICE_CLOSED, data=data))
        return events, [event.data["transaction_id"] for event in events]

    return Decision(decide)


def _folded(events: Iterable[tuple[str, dict[str, Any]]]) -> tuple[list[dict[str, Any]], Decimal]:
    """An invoice's lines, one per kind and destination (count, quantity, amount), from its charges."""
    lines: dict[tuple[str, str], dict[str, Any]] = {}
    for type_, data in events:
        if type_ != CHARGED:
            continue
        for line in data["lines"]:
            key = (line["kind"], line["destination"])
            held = lines.setdefault(key, {"kind": key[0], "destination": key[1], "count": 0, "quantity": 0,
                                          "amount": ZERO})  # fmt: skip
            held.update(count=held["count"] + 1, quantity=held["quantity"] + line["quantity"],
                        amount=held["amount"] + money(line["amount"]))  # fmt: skip
    total = sum((line["amount"] for line in lines.values()), ZERO)
    return [{**line, "amount": str(line["amount"])} for _, line in sorted(lines.items())], total


def set_tariffs(customer_id: int, tariffs: list[dict[str, Any]]) -> Decision[list[dict[str, Any]]]:
    """The customer's own tariffs, replacing the ones it had."""

    def decide(conn: sqlite3.Connection) -> tuple[list[NewEvent], list[dict[str, Any]]]:
        if not customer_exists(conn, customer_id):
            raise Unknown(f"Customer {customer_id} not found")
        known = bool(reads.documents(conn, "tariffcard", [customer_id], customer_id))
        data = {"customer_id": customer_id, "tariffs": tariffs, "opening": not known}
        return [NewEvent(stream=_customer_stream(customer_id), type=TARIFFS_SET, data=data)], tariffs

    return Decision(decide)
