"""The read models of the ledger: transactions, balances and customers' own tariffs.

Each is a document table fed by the billing events (`ledger`), which carry every figure the models
show, so these feeds only copy them: a transaction per credit and per month's invoice (its amount
following each charge, its lines once closed), a balance per customer, a tariff card per customer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ..clock import wire_time
from ..documents.changes import Patch, Put
from ..documents.projection import DocumentChange, Feed
from ..domain.billing import shown
from ..domain.events import Event
from ..domain.events.billing import Charged, Credited, InvoiceClosed, InvoiceOpened, TariffsSet
from ..eventlog import RecordedEvent


def credited(credit: Credited) -> dict[str, Any]:
    """The transaction of a top-up or an adjustment: completed at once."""
    at = wire_time(credit.at)
    return {"id": credit.transaction_id, "created_at": at, "amount": shown(credit.amount),
            "currency_iso": credit.currency, "type": credit.kind, "result": "completed", "period": None,
            "description": credit.note, "closed_at": at, "lines": None}  # fmt: skip


def transactions(event: RecordedEvent) -> Iterable[DocumentChange]:
    match event.event:
        case Credited() as credit:
            yield Put(credit.transaction_id, credit.customer_id, credited(credit))
        case InvoiceOpened(transaction_id=id_, customer_id=customer_id, period=period) as opened:
            yield Put(id_, customer_id, {
                "id": id_, "created_at": wire_time(opened.at), "amount": 0.0, "currency_iso": opened.currency,
                "type": "invoice", "result": "pending", "period": period, "description": f"Calls and SMS of {period}",
                "closed_at": None, "lines": None})  # fmt: skip
        case Charged(transaction_id=id_, invoice_amount_after=after):
            yield Patch(id_, {"amount": shown(after)})
        case InvoiceClosed(transaction_id=id_, at=at, lines=lines):
            shown_lines = [{**msgspec.structs.asdict(line), "amount": shown(line.amount)} for line in lines]
            yield Patch(id_, {"result": "completed", "closed_at": wire_time(at), "lines": shown_lines})


def balances(event: RecordedEvent) -> Iterable[DocumentChange]:
    match event.event:
        case (
            Credited(customer_id=customer_id, balance_after=after, currency=currency, opening=opening)
            | Charged(customer_id=customer_id, balance_after=after, currency=currency, opening=opening)
        ):
            if opening:
                yield Put(customer_id, customer_id, {"id": customer_id, "balance": after, "currency_iso": currency})
            else:
                yield Patch(customer_id, {"balance": after, "currency_iso": currency})


def tariff_cards(event: RecordedEvent) -> Iterable[DocumentChange]:
    match event.event:
        case TariffsSet(customer_id=customer_id, tariffs=tariffs, opening=opening):
            if opening:
                yield Put(customer_id, customer_id, {"id": customer_id, "tariffs": tariffs})
            else:
                yield Patch(customer_id, {"tariffs": tariffs})


FEEDS: dict[str, dict[type[Event], Feed]] = {
    "transaction": {Credited: transactions, InvoiceOpened: transactions, Charged: transactions,
                    InvoiceClosed: transactions},
    "balance": {Credited: balances, Charged: balances},
    "tariffcard": {TariffsSet: tariff_cards},
}  # fmt: skip
"""The ledger's document kinds and the billing events each is made from."""
