"""What calls and SMS cost, as pure rules: tariffs by number prefix, billed time, charges, periods.

Money is `Decimal`, kept to four decimal places (`money`) and carried in events as text, so sums
are exact and a replay gives the same figures; the API shows amounts as JSON numbers.

A call's billed time is its answered time in whole seconds (its CDR's `billsec`, rounded once by
`domain.calls.whole_seconds`) rounded up by the tariff's increment, "first/next"
seconds: 61 seconds at 60/60 bill 120 seconds, at 1/1 they bill 61, at 30/6 they bill 66. An
answered call costs `per_minute` for its billed time plus `connection_fee`, and at least
`minimum_charge`; an unanswered one costs nothing. An SMS costs `sms` per part.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

PLACES = Decimal("0.0001")
ZERO = Decimal("0.0000")


def money(value: Any) -> Decimal:
    """An amount to four decimal places (from a number, a text or a Decimal)."""
    return Decimal(str(value)).quantize(PLACES, rounding=ROUND_HALF_UP)


def shown(amount: Any) -> float:
    """An amount as the API shows it: a JSON number."""
    return float(money(amount))


@dataclass(frozen=True)
class Tariff:
    """The price of one kind of destination (`prefix`: the digits its numbers start with)."""

    prefix: str
    name: str
    per_minute: Decimal
    first: int
    next: int
    minimum_charge: Decimal = ZERO
    connection_fee: Decimal = ZERO
    sms: Decimal = ZERO

    @classmethod
    def of(cls, prefix: str, name: str, per_minute: Any, increment: str = "60/60", minimum_charge: Any = 0,
           connection_fee: Any = 0, sms: Any = 0) -> Tariff:  # fmt: skip
        """A tariff as configured: amounts as numbers, the increment as "first/next" seconds."""
        first, _, step = increment.partition("/")
        return cls(prefix.lstrip("+"), name, money(per_minute), int(first), int(step or first),
                   money(minimum_charge), money(connection_fee), money(sms))  # fmt: skip

    @classmethod
    def recorded(cls, record: Mapping[str, Any]) -> Tariff:
        """A tariff as a call's events carry it (`record`)."""
        return cls.of(**record)

    def record(self) -> dict[str, str]:
        """The tariff as a call's events carry it: what prices the call, and what its live call shows."""
        return {"prefix": self.prefix, "name": self.name, "per_minute": str(self.per_minute),
                "increment": self.increment, "minimum_charge": str(self.minimum_charge),
                "connection_fee": str(self.connection_fee)}  # fmt: skip

    @property
    def increment(self) -> str:
        return f"{self.first}/{self.next}"

    def billed_seconds(self, seconds: int) -> int:
        """The answered time (whole seconds, the CDR's `billsec`) rounded up by the increment (nothing
        for an unanswered call)."""
        if seconds <= 0:
            return 0
        if seconds <= self.first:
            return self.first
        return self.first + math.ceil((seconds - self.first) / self.next) * self.next

    def call(self, seconds: int) -> Decimal:
        """The charge of a call answered for `seconds` (whole seconds)."""
        billed = self.billed_seconds(seconds)
        if billed == 0:
            return ZERO
        return money(max(self.per_minute * billed / 60 + self.connection_fee, self.minimum_charge))

    def message(self, parts: int) -> Decimal:
        """The charge of an SMS of `parts` parts."""
        return money(self.sms * max(parts, 0))

    def least(self) -> Decimal:
        """What the shortest answered call costs: a balance below it cannot pay for one."""
        return self.call(1)

    def seconds_paid(self, balance: Decimal) -> int:
        """How long a call may last before its charge passes `balance` (0 when it cannot start)."""
        if balance < self.least():
            return 0
        if self.per_minute <= 0:
            return 2**31
        billed = int((balance - self.connection_fee) * 60 / self.per_minute)
        if billed < self.first:
            return self.first if self.call(self.first) <= balance else 0
        return self.first + (billed - self.first) // self.next * self.next


@dataclass(frozen=True)
class Leg:
    """A leg of a call the platform carries: to an outside `number` (through the carrier), or an
    `internal` one (an extension, voicemail, an IVR ...), answered for `seconds` (whole seconds)."""

    name: str
    number: str
    seconds: int
    internal: bool = False
    tariff: Tariff | None = None
    """The tariff the call recorded for this leg when it reached its destination (None: not known yet)."""


def tariff_for(number: str, own: Sequence[Tariff], table: Sequence[Tariff], default: Tariff) -> Tariff:
    """The tariff of a number: the longest prefix that matches, among the customer's `own` tariffs and
    the `table`; the customer's wins a tie; `default` when none matches."""
    digits = number.lstrip("+")
    candidates = [(len(t.prefix), rank, t) for rank, tariffs in ((1, own), (0, table)) for t in tariffs
                  if t.prefix and digits.startswith(t.prefix)]  # fmt: skip
    return max(candidates, key=lambda c: (c[0], c[1]))[2] if candidates else default


def period_of(moment: float) -> str:
    """The month an instant (epoch seconds, UTC) is billed in: `YYYY-MM`."""
    return dt.datetime.fromtimestamp(moment, dt.UTC).strftime("%Y-%m")


def period_start(period: str) -> float:
    """The first instant of a month (`YYYY-MM`), epoch seconds UTC."""
    year, month = (int(part) for part in period.split("-"))
    return dt.datetime(year, month, 1, tzinfo=dt.UTC).timestamp()


def next_period_start(moment: float) -> float:
    """The start of the month after the one `moment` is in: when that month's invoices close."""
    at = dt.datetime.fromtimestamp(moment, dt.UTC)
    year, month = (at.year + 1, 1) if at.month == 12 else (at.year, at.month + 1)
    return dt.datetime(year, month, 1, tzinfo=dt.UTC).timestamp()
