"""The read models of the ledger: transactions, balances and customers' own tariffs.

Each is a document table fed by the billing events (`ledger`), which carry every figure the models
show, so these feeds only copy them: a transaction per credit and per month's invoice (its amount
following each charge, its lines once closed), a balance per customer, a tariff card per customer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..clock import wire_time
from ..documents.projection import DocumentChange, patch, put
from ..domain.billing import shown
from ..eventlog import RecordedEvent
from .ledger import CHARGED, CREDITED, INVOICE_CLOSED, INVOICE_OPENED, TARIFFS_SET


def credited(data: dict[str, Any]) -> dict[str, Any]:
    """The transaction of a top-up or an adjustment: completed at once."""
    at = wire_time(data["at"])
    return {"id": data["transaction_id"], "created_at": at, "amount": shown(data["amount"]),
            "currency_iso": data["currency"], "type": data["kind"], "result": "completed", "period": None,
            "description": data.get("note"), "closed_at": at, "lines": None}  # fmt: skip


def transactions(event: RecordedEvent) -> Iterable[DocumentChange]:
    d = event.data
    if event.type == CREDITED:
        yield put(d["transaction_id"], d["customer_id"], credited(d))
    elif event.type == INVOICE_OPENED:
        yield put(d["transaction_id"], d["customer_id"], {
            "id": d["transaction_id"], "created_at": wire_time(d["at"]), "amount": 0.0, "currency_iso": d["currency"],
            "type": "invoice", "result": "pending", "period": d["period"],
            "description": f"Calls and SMS of {d['period']}", "closed_at": None, "lines": None})  # fmt: skip
    elif event.type == CHARGED:
        yield patch(d["transaction_id"], {"amount": shown(d["invoice_amount_after"])})
    elif event.type == INVOICE_CLOSED:
        lines = [{**line, "amount": shown(line["amount"])} for line in d["lines"]]
        yield patch(d["transaction_id"], {"result": "completed", "closed_at": wire_time(d["at"]), "lines": lines})


def balances(event: RecordedEvent) -> Iterable[DocumentChange]:
    d = event.data
    if d.get("opening"):
        yield put(d["customer_id"], d["customer_id"], {"id": d["customer_id"], "balance": d["balance_after"],
                                                      "currency_iso": d["currency"]})  # fmt: skip
    else:
        yield patch(d["customer_id"], {"balance": d["balance_after"], "currency_iso": d["currency"]})


def tariff_cards(event: RecordedEvent) -> Iterable[DocumentChange]:
    d = event.data
    if d.get("opening"):
        yield put(d["customer_id"], d["customer_id"], {"id": d["customer_id"], "tariffs": d["tariffs"]})
    else:
        yield patch(d["customer_id"], {"tariffs": d["tariffs"]})


FEEDS = {
    "transaction": {CREDITED: transactions, INVOICE_OPENED: transactions, CHARGED: transactions,
                    INVOICE_CLOSED: transactions},
    "balance": {CREDITED: balances, CHARGED: balances},
    "tariffcard": {TARIFFS_SET: tariff_cards},
}  # fmt: skip
"""The ledger's document kinds and the billing events each is made from."""
