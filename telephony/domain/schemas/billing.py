"""Money and the unified history, as real clients read them (`real-platform.md`, "Files and billing").

A transaction is a top-up (`credit`), an `adjustment` or a month's `invoice` of call and SMS
charges; `amount` is signed (credits add to the balance, an invoice takes from it), so a customer's
balance is the sum of its transactions. A conversation is one call, SMS, fax or chat of the unified
history.
"""

from typing import Annotated

import msgspec

from ..types import Resource

Amount = Annotated[str, msgspec.Meta(pattern=r"^-?[0-9]{1,12}\.[0-9]{4}$", description="an amount to four places")]


class InvoiceLine(msgspec.Struct, kw_only=True):
    """What a closed invoice charged for one kind of destination: calls (billed seconds) or SMS (parts)."""

    kind: str
    destination: str
    count: int
    quantity: int
    amount: float


class Transaction(Resource):
    """The real platform's fields, plus the month an invoice covers, its note, its lines once closed."""

    id: int = 0
    created_at: str | None = None
    amount: float = 0.0
    currency_iso: str | None = None
    type: str | None = None
    result: str | None = None
    period: str | None = None
    description: str | None = None
    closed_at: str | None = None
    lines: list[InvoiceLine] | None = None


class Conversation(Resource):
    """The real platform's fields, plus the user it belongs to and the record it stands for."""

    id: int = 0
    created_at: str | None = None
    channel: str | None = None
    src: str | None = None
    dst: str | None = None
    duration: int | None = None
    type: str | None = None
    user_id: int | None = None
    source_id: int | None = None


class Balance(Resource):
    """A customer's balance (`id` the customer's), as the ledger keeps it: never listed, exported."""

    id: int = 0
    balance: Amount = "0.0000"
    currency_iso: Annotated[str, msgspec.Meta(pattern="^[A-Z]{3}$", description="an ISO 4217 code")] = "EUR"


class OwnTariff(msgspec.Struct, kw_only=True):
    prefix: Annotated[str, msgspec.Meta(pattern=r"^\+?[0-9]{1,15}$", description="the digits numbers start with")]
    name: str = ""
    per_minute: Annotated[float, msgspec.Meta(ge=0, le=1_000_000)] = 0.0
    increment: Annotated[str, msgspec.Meta(pattern="^[1-9][0-9]{0,3}/[1-9][0-9]{0,3}$")] = "60/60"
    minimum_charge: Annotated[float, msgspec.Meta(ge=0, le=1_000_000)] = 0.0
    connection_fee: Annotated[float, msgspec.Meta(ge=0, le=1_000_000)] = 0.0
    sms: Annotated[float, msgspec.Meta(ge=0, le=1_000_000)] = 0.0


class TariffCard(Resource):
    """A customer's own tariffs (`id` the customer's): never listed, exported."""

    id: int = 0
    tariffs: list[OwnTariff] = msgspec.field(default_factory=list)
