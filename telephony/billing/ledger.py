"""The ledger: credits, charges and monthly invoices, decided inside the writer's transaction.

Its events (`domain.events.billing`): a credit or an adjustment (`billing.credited`) on
`billing-<customer>`; the first charge of a month opens its invoice (`billing.invoice_opened`), each
call's or SMS's charge (`billing.charged`) and the month's close (`billing.invoice_closed`, its lines
folded from the invoice's own stream) on `invoice-<id>`; the customer's own tariffs
(`billing.tariffs_set`). Amounts are texts of four decimal places; each event that moves the balance
carries the balance after it, so the read models are plain copies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import msgspec

from ..accounts import customer_exists
from ..documents import reads
from ..domain.billing import ZERO, money, period_of
from ..domain.errors import Unknown
from ..domain.events import Event
from ..domain.events.billing import (
    Charged,
    ChargedLine,
    Credited,
    InvoiceClosed,
    InvoiceLine,
    InvoiceOpened,
    TariffsSet,
)
from ..eventlog import Decision, NewEvent, store
from ..eventlog.connection import Connection
from ..projections.sequences import next_id

CLAIMING = (Credited, InvoiceOpened)
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


def balance(conn: Connection, customer_id: int) -> tuple[Decimal, bool]:
    """A customer's balance, and whether it has one on record yet."""
    found = reads.documents(conn, "balance", [customer_id], customer_id).get(customer_id)
    return (money(found["balance"]), True) if found else (ZERO, False)


def credit(customer_id: int, amount: Decimal, currency: str, note: str | None, kind: str, now: Now
           ) -> Decision[Credited]:  # fmt: skip
    """A top-up or an adjustment: a completed transaction of `amount`, added to the balance."""

    def decide(conn: Connection) -> tuple[list[NewEvent], Credited]:
        if not customer_exists(conn, customer_id):
            raise Unknown(f"Customer {customer_id} not found")
        before, known = balance(conn, customer_id)
        transaction_id = next_id(conn, "transaction")
        credited = Credited(customer_id=customer_id, transaction_id=transaction_id, kind=kind, amount=str(amount),
                            currency=currency, note=note, at=now(), balance_after=str(before + amount),
                            opening=not known, claims={"transaction": [transaction_id]})  # fmt: skip
        return [NewEvent(stream=_customer_stream(customer_id), event=credited)], credited

    return Decision(decide)


def charged(conn: Connection, customer_id: int, currency: str, at: float, lines: Iterable[Line]
            ) -> list[NewEvent]:  # fmt: skip
    """The events that charge `lines` to the month's invoice (opened by the first charge of the month)
    and take them from the balance; none when they cost nothing."""
    lines = [line for line in lines if line.amount > 0]
    if not lines:
        return []
    period = period_of(at)
    invoices = [
        t for t in reads.every_document(conn, "transaction", customer_id, period=period) if t["type"] == "invoice"
    ]
    events = []
    if invoices:
        transaction_id, so_far = invoices[0]["id"], money(invoices[0]["amount"])
    else:
        transaction_id, so_far = next_id(conn, "transaction"), ZERO
        opened = InvoiceOpened(customer_id=customer_id, transaction_id=transaction_id, period=period, at=at,
                               currency=currency, claims={"transaction": [transaction_id]})  # fmt: skip
        events.append(NewEvent(stream=_invoice_stream(transaction_id), event=opened))
    total = sum((line.amount for line in lines), ZERO)
    before, known = balance(conn, customer_id)
    charged_ = Charged(customer_id=customer_id, transaction_id=transaction_id, period=period, at=at,
                       amount=str(total), lines=[_line(line) for line in lines],
                       invoice_amount_after=str(so_far - total), balance_after=str(before - total),
                       currency=currency, opening=not known)  # fmt: skip
    return [*events, NewEvent(stream=_invoice_stream(transaction_id), event=charged_)]


def _line(line: Line) -> ChargedLine:
    return ChargedLine(kind=line.kind, destination=line.destination, quantity=line.quantity, amount=str(line.amount))


def close_due(now: Now) -> Decision[list[int]]:
    """Close every open invoice of a month before the clock's: its lines folded from its charges. The
    ids of the invoices closed."""

    def decide(conn: Connection) -> tuple[list[NewEvent], list[int]]:
        at = now()
        current = period_of(at)
        events: list[NewEvent] = []
        for customer_id, body in reads.every(conn, "transaction"):
            invoice = msgspec.json.decode(body)
            if invoice["type"] != "invoice" or invoice["result"] != "pending" or invoice["period"] >= current:
                continue
            lines, total = _folded(store.stream_events(conn, _invoice_stream(invoice["id"])))
            closed = InvoiceClosed(customer_id=customer_id, transaction_id=invoice["id"], period=invoice["period"],
                                   at=at, lines=lines, total=str(total))  # fmt: skip
            events.append(NewEvent(stream=_invoice_stream(invoice["id"]), event=closed))
        return events, [new.event.transaction_id for new in events]  # type: ignore[attr-defined]

    return Decision(decide)


def _folded(events: Iterable[Event]) -> tuple[list[InvoiceLine], Decimal]:
    """An invoice's lines, one per kind and destination (count, quantity, amount), from its charges."""
    lines: dict[tuple[str, str], tuple[int, int, Decimal]] = {}
    for event in events:
        if not isinstance(event, Charged):
            continue
        for line in event.lines:
            count, quantity, amount = lines.get((line.kind, line.destination), (0, 0, ZERO))
            lines[line.kind, line.destination] = (count + 1, quantity + line.quantity, amount + money(line.amount))
    total = sum((amount for _, _, amount in lines.values()), ZERO)
    return [InvoiceLine(kind=kind, destination=destination, count=count, quantity=quantity, amount=str(amount))
            for (kind, destination), (count, quantity, amount) in sorted(lines.items())], total  # fmt: skip


def set_tariffs(customer_id: int, tariffs: list[dict[str, Any]]) -> Decision[list[dict[str, Any]]]:
    """The customer's own tariffs, replacing the ones it had."""

    def decide(conn: Connection) -> tuple[list[NewEvent], list[dict[str, Any]]]:
        if not customer_exists(conn, customer_id):
            raise Unknown(f"Customer {customer_id} not found")
        known = bool(reads.documents(conn, "tariffcard", [customer_id], customer_id))
        set_ = TariffsSet(customer_id=customer_id, tariffs=tariffs, opening=not known)
        return [NewEvent(stream=_customer_stream(customer_id), event=set_)], tariffs

    return Decision(decide)
