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
    """`call` or `sms`."""
    destination: str
    """The tariff's destination the line charges for (`UK mobile`, ...)."""
    count: int
    """How many calls or SMS."""
    quantity: int
    """What was billed: seconds of calls, parts of SMS."""
    amount: float
    """What the line charged."""


class Transaction(Resource):
    """The real platform's fields, plus the month an invoice covers, its note, its lines once closed."""

    id: int = 0
    """The transaction's id."""
    created_at: str | None = None
    """When it was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    amount: float = 0.0
    """What it adds to the balance (an invoice's is negative)."""
    currency_iso: str | None = None
    """The currency (ISO 4217)."""
    type: str | None = None
    """`credit`, `adjustment` or `invoice`."""
    result: str | None = None
    """`completed`, or `pending` while an invoice is open."""
    period: str | None = None
    """The month an invoice covers (`YYYY-MM`)."""
    description: str | None = None
    """A note: what a credit was for, the month an invoice covers."""
    closed_at: str | None = None
    """When an invoice was closed (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    lines: list[InvoiceLine] | None = None
    """What a closed invoice charged, by kind and destination."""


class Conversation(Resource):
    """The real platform's fields, plus the user it belongs to and the record it stands for."""

    id: int = 0
    """The conversation's id: ids grow in the order things happened across channels."""
    created_at: str | None = None
    """When it happened (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    channel: str | None = None
    """`call`, `sms`, `fax` or `chat`."""
    src: str | None = None
    """Who it came from (a number, a chat's visitor)."""
    dst: str | None = None
    """Whom it went to (a number, a chat's operator)."""
    duration: int | None = None
    """Seconds it lasted (0 for SMS and faxes)."""
    type: str | None = None
    """`in`, `out` or `missed`."""
    user_id: int | None = None
    """The user it belongs to."""
    source_id: int | None = None
    """The id of the record it stands for (a CDR's, an SMS's ...)."""


class Balance(Resource):
    """A customer's balance (`id` the customer's), as the ledger keeps it: never listed, exported."""

    id: int = 0
    """The customer's id."""
    balance: Amount = "0.0000"
    """The balance: the sum of the customer's transactions."""
    currency_iso: Annotated[str, msgspec.Meta(pattern="^[A-Z]{3}$", description="an ISO 4217 code")] = "EUR"
    """The currency (ISO 4217)."""


class OwnTariff(msgspec.Struct, kw_only=True):
    """One of a customer's own tariffs: the price of the numbers that start with `prefix`."""

    prefix: Annotated[str, msgspec.Meta(pattern=r"^\+?[0-9]{1,15}$", description="the digits numbers start with")]
    """The digits the numbers it prices start with."""
    name: str = ""
    """The destination's name (`UK mobile`)."""
    per_minute: Annotated[float, msgspec.Meta(ge=0, le=1_000_000)] = 0.0
    """The price of a minute."""
    increment: Annotated[str, msgspec.Meta(pattern="^[1-9][0-9]{0,3}/[1-9][0-9]{0,3}$")] = "60/60"
    """Billing increments, `<first seconds>/<then seconds>` (`60/60`, `1/1`)."""
    minimum_charge: Annotated[float, msgspec.Meta(ge=0, le=1_000_000)] = 0.0
    """The least a call costs."""
    connection_fee: Annotated[float, msgspec.Meta(ge=0, le=1_000_000)] = 0.0
    """What a call costs on being connected."""
    sms: Annotated[float, msgspec.Meta(ge=0, le=1_000_000)] = 0.0
    """The price of an SMS part."""


class TariffCard(Resource):
    """A customer's own tariffs (`id` the customer's): never listed, exported."""

    id: int = 0
    """The customer's id."""
    tariffs: list[OwnTariff] = msgspec.field(default_factory=list)
    """The customer's own tariffs: they win over `[billing]`'s for the prefixes they name."""
