"""Billing over HTTP: a transaction's PDF for clients, and the operator's credits and tariffs.

`GET /transactions/{id}.pdf` answers `200 application/json {"data": {"mime_type": "application/pdf",
"base64": ...}}` (real-platform.md): the invoice of a closed month, or the receipt of a top-up or an
adjustment; an invoice still open is a 400 whose message says it is "not completed yet". The lists
(`/transactions`, `/transactions/{id}`) are the registry's.
"""

from __future__ import annotations

import base64
from typing import Annotated, Literal

import msgspec
from aiohttp import web

from ..accounts import customer_name_of
from ..api.access import may_read
from ..api.context import meta_of, principal
from ..api.control import control_route, control_shape
from ..api.errors import BadRequest, NotFound
from ..api.responses import collection, json_response
from ..api.route_table import Route
from ..api.shapes import Shape
from ..api.wire import read_json
from ..config import Tariff
from ..documents import reads
from ..domain.billing import money
from ..domain.errors import Problems
from ..domain.nouns import not_found
from ..domain.schemas import Transaction
from ..keys import BILLING, READER
from ..media import pdf

Amount = Annotated[float, msgspec.Meta(ge=-1_000_000_000, le=1_000_000_000)]
TITLES = {"invoice": "Invoice", "credit": "Receipt", "adjustment": "Adjustment"}


class PdfFile(msgspec.Struct):
    """A file in the JSON envelope real clients decode."""

    mime_type: str
    base64: str


async def transaction_pdf(request: web.Request) -> web.Response:
    who = principal(request)
    transaction_id = int(request.match_info["id"])
    body = await reads.body(request.app[READER], "transaction", transaction_id, who.customer_id)
    if body is None:
        raise NotFound(not_found("transaction", transaction_id))
    found = msgspec.json.decode(body)
    if found["result"] != "completed":
        raise BadRequest(f"Invoice {transaction_id} is not completed yet: it closes when its month is over.")
    lines = found.get("lines")
    if lines is None:  # a top-up or an adjustment: its one line
        lines = [{"kind": found["type"], "destination": found.get("description") or TITLES[found["type"]],
                  "count": 1, "quantity": 1, "amount": found["amount"]}]  # fmt: skip
    total = float(sum(money(line["amount"]) for line in lines))
    customer = await customer_name_of(request.app[READER], who.customer_id) or str(who.customer_id)
    document = pdf.Invoice(TITLES.get(found["type"], "Transaction"), transaction_id, customer, who.customer_id,
                           found.get("period"), found.get("closed_at") or found["created_at"],
                           found["currency_iso"], lines, total)  # fmt: skip
    data = PdfFile("application/pdf", base64.b64encode(pdf.invoice(document)).decode())
    return json_response({"data": data})


class Credit(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    amount: Amount
    note: Annotated[str, msgspec.Meta(max_length=255)] | None = None
    type: Literal["credit", "adjustment"] = "credit"
    """`credit`: a top-up (a positive amount); `adjustment`: a correction of either sign."""


def _signed(body: Credit) -> Problems:
    """A credit adds a positive amount; an adjustment any but 0."""
    if not isinstance(body.amount, int | float):
        return []
    amount = money(body.amount)
    if amount == 0 or (body.type == "credit" and amount < 0):
        return [("amount", "A credit must be a positive amount; an adjustment any other than 0.")]
    return []


async def credit(request: web.Request) -> web.Response:
    """Top a customer's balance up (or adjust it): a completed transaction, added to the balance."""
    body = await read_json(request, Credit, _signed)
    amount = money(body.amount)
    customer_id = int(request.match_info["id"])
    credited = await request.app[BILLING].credit(customer_id, amount, body.note, body.type, meta_of(request))
    found = await reads.body(request.app[READER], "transaction", credited.transaction_id, customer_id)
    return json_response({"data": msgspec.json.decode(found or b"{}")}, status=201)


def _prefixed(tariffs: list[Tariff]) -> Problems:
    return [("prefix", "A customer's tariff names the prefix it prices.") for t in tariffs if not t.prefix.lstrip("+")]


async def set_tariffs(request: web.Request) -> web.Response:
    """Give a customer its own tariffs (they win over `[billing]`'s for the prefixes they name)."""
    tariffs = await read_json(request, list[Tariff], _prefixed)
    listed = [msgspec.to_builtins(t) for t in tariffs]
    await request.app[BILLING].set_tariffs(int(request.match_info["id"]), listed, meta_of(request))
    return collection(listed)


async def tariffs(request: web.Request) -> web.Response:
    customer_id = int(request.match_info["id"])
    if await customer_name_of(request.app[READER], customer_id) is None:
        raise NotFound(f"Customer {customer_id} not found")
    body = await reads.body(request.app[READER], "tariffcard", customer_id, customer_id)
    return collection(msgspec.json.decode(body)["tariffs"] if body else [])


CUSTOMER = r"/customers/{id:\d{1,18}}"
ROUTES = [
    Route("GET", r"/transactions/{id:\d+}.pdf", transaction_pdf, may_read("customer"), origin="real-platform",
          shape=Shape(PdfFile, errors=(400, 404), tag="customer")),
]  # fmt: skip
CONTROL_ROUTES = [
    control_route("POST", CUSTOMER + "/credit", credit,
                  control_shape(Transaction, status=201, body=Credit, errors=(400, 404))),
    control_route("PUT", CUSTOMER + "/tariffs", set_tariffs, control_shape(Tariff, "list", body=list[Tariff],
                                                                         errors=(400, 404))),
    control_route("GET", CUSTOMER + "/tariffs", tariffs, control_shape(Tariff, "list", errors=(404,))),
]  # fmt: skip
