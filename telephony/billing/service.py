"""Billing as the rest of the app uses it: tariffs, the price of a call's legs, the monthly close.

The call engine asks `tariffs` when a call reaches a destination (the call records them: they price
it, whatever the tariffs become meanwhile, and its live call shows them), `price` at a call's end
(the CDR's rate and charge, each leg's, and the events that charge the customer), `payable` before
it rings a chargeable number and `paid_seconds` when a call connects, all inside the writer's
transaction. With `[billing] enforce_balance` on, a call the balance cannot pay for its shortest
billed time is refused before it rings (402), and a connected call ends when its charge would pass
the balance ("credit exhausted"); off, balances may go below zero. Invoices close at the start of
each month (UTC) on the app's scheduler: a timer at the next month's start, derived again at every
start, so a moved clock closes them and a month missed while the server was down closes at start,
with the clock of the start.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from ..clock import Clock
from ..config import Billing as BillingSettings
from ..config import Tariff as TariffSetting
from ..documents import reads
from ..domain.billing import ZERO, Leg, Tariff, money, next_period_start, tariff_for
from ..domain.errors import Unpaid
from ..domain.events.billing import Credited
from ..domain.events.calls import LegPrice, Price
from ..eventlog import EventLog, Metadata, NewEvent
from ..eventlog.connection import Connection
from ..reactors.scheduler import Job, Timers
from . import ledger

log = logging.getLogger(__name__)
CLOSING = "billing:close-invoices"
SCHEDULED = Metadata(source="scheduler")
INTERNAL = "Internal calls"
UNPAID = "Insufficient balance: top up the account to make this call"
UNPAID_SMS = "Insufficient balance: top up the account to send this SMS"


def tariff(setting: TariffSetting) -> Tariff:
    return Tariff.of(setting.prefix, setting.name or setting.prefix, setting.per_minute, setting.increment,
                     setting.minimum_charge, setting.connection_fee, setting.sms)  # fmt: skip


class Billing:
    def __init__(self, settings: BillingSettings, event_log: EventLog, scheduler: Timers, clock: Clock) -> None:
        self.settings = settings
        self.currency = settings.currency
        self._table = [tariff(t) for t in settings.tariffs]
        self._default = tariff(settings.default)
        self._internal = Tariff.of("", INTERNAL, 0) if settings.internal_calls_free else (
            Tariff.of("", INTERNAL, settings.default.per_minute, settings.default.increment))  # fmt: skip
        self._log = event_log
        self._scheduler = scheduler
        self._clock = clock

    # --- tariffs ---------------------------------------------------------------------------------

    def own(self, conn: Connection, customer_id: int) -> list[Tariff]:
        """The customer's own tariffs (set by the operator), which win over the table's."""
        card = reads.documents(conn, "tariffcard", [customer_id], customer_id).get(customer_id)
        return [tariff(TariffSetting(**t)) for t in (card or {}).get("tariffs") or ()]

    def tariff_of(self, conn: Connection, customer_id: int, leg: Leg) -> Tariff:
        """The tariff a leg is priced by: the one its call recorded, else the one its number has now."""
        if leg.tariff is not None:
            return leg.tariff
        if leg.internal:
            return self._internal
        return tariff_for(leg.number, self.own(conn, customer_id), self._table, self._default)

    def tariffs(self, conn: Connection, customer_id: int, legs: Sequence[Leg]) -> dict[str, dict[str, str]]:
        """The tariff of each leg (by its name) as the call records it when it reaches its destination."""
        return {leg.name: self.tariff_of(conn, customer_id, leg).record() for leg in legs}

    # --- calls -----------------------------------------------------------------------------------

    def price(self, conn: Connection, customer_id: int, legs: Sequence[Leg], at: float
              ) -> tuple[Price, list[NewEvent]]:  # fmt: skip
        """A call's price at its end (each leg's, the rate of the one its CDR shows, the whole charge),
        and the events that charge the customer for it."""
        priced: dict[str, LegPrice] = {}
        lines = []
        for leg in legs:
            found = self.tariff_of(conn, customer_id, leg)
            amount = found.call(leg.seconds)
            priced[leg.name] = LegPrice(rate=str(found.per_minute), seconds=leg.seconds, charge=str(amount),
                                        destination=found.name)  # fmt: skip
            lines.append(ledger.Line("call", found.name, found.billed_seconds(leg.seconds), amount))
        total = sum((money(p.charge) for p in priced.values()), ZERO)
        main = priced.get("dst") or next(iter(priced.values()), None)
        price = Price(rate=main.rate if main is not None else str(ZERO), charge=str(total), legs=priced)
        return price, ledger.charged(conn, customer_id, self.currency, at, lines)

    def message(self, conn: Connection, customer_id: int, number: str, parts: int, at: float
                ) -> tuple[dict[str, Any], list[NewEvent]]:  # fmt: skip
        """An SMS's price, `parts` parts to `number`: {rate (per part), charge, destination}, and the
        events that charge the customer for it."""
        found = self.tariff_of(conn, customer_id, Leg("sms", number, 0))
        amount = found.message(parts)
        price = {"rate": str(found.sms), "charge": str(amount), "destination": found.name}
        return price, ledger.charged(conn, customer_id, self.currency, at, [ledger.Line("sms", found.name, parts,
                                                                                          amount)])  # fmt: skip

    def payable_message(self, conn: Connection, customer_id: int, number: str, parts: int) -> None:
        """Refuse (402) an SMS the balance cannot pay, when enforced."""
        if self.settings.enforce_balance:
            found = self.tariff_of(conn, customer_id, Leg("sms", number, 0))
            if found.message(parts) > ledger.balance(conn, customer_id)[0]:
                raise Unpaid(UNPAID_SMS)

    def payable(self, conn: Connection, customer_id: int, legs: Sequence[Leg]) -> None:
        """Refuse (402) a call whose balance cannot pay its shortest billed time, when enforced."""
        if self.settings.enforce_balance and self.paid_seconds(conn, customer_id, legs) == 0:
            raise Unpaid(UNPAID)

    def paid_seconds(self, conn: Connection, customer_id: int, legs: Sequence[Leg]) -> float | None:
        """How long the balance pays the call's chargeable legs from now; None when nothing limits it."""
        if not self.settings.enforce_balance:
            return None
        tariffs = [found for leg in legs if (found := self.tariff_of(conn, customer_id, leg)).least() > 0]
        if not tariffs:
            return None
        balance, _ = ledger.balance(conn, customer_id)
        share = balance / len(tariffs)  # legs running together share what is left
        return float(min(found.seconds_paid(share) for found in tariffs))

    # --- money in --------------------------------------------------------------------------------

    async def credit(self, customer_id: int, amount: Decimal, note: str | None, kind: str, meta: Metadata
                     ) -> Credited:  # fmt: skip
        decision = ledger.credit(customer_id, amount, self.currency, note, kind, self._clock.time)
        await self._log.transact(decision, meta)
        return decision.result

    async def set_tariffs(self, customer_id: int, tariffs: list[dict[str, Any]], meta: Metadata) -> None:
        await self._log.transact(ledger.set_tariffs(customer_id, tariffs), meta)

    # --- the monthly close -------------------------------------------------------------------------

    def closing(self) -> Iterator[tuple[float, str, Job]]:
        """A close at every start (months that ended while the server was down), then one at the start
        of every month."""
        yield self._clock.time(), CLOSING, self._close

    async def _close(self) -> None:
        try:
            closing = ledger.close_due(self._clock.time)
            await self._log.transact(closing, SCHEDULED)
            if closing.result:
                log.info("closed %d invoice(s)", len(closing.result))
        finally:
            self._scheduler.at(next_period_start(self._clock.time()), CLOSING, self._close)
