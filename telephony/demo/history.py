"""Ninety days of the company's life, made by the product's own engine on a moved clock.

Each day the company is open (08:00 to 18:00 UTC, quieter at weekends), calls, text threads and faxes
are drawn (`activity.py`) at times of the day; for each, the clock is set to its time
(`POST /_telephony/clock`, which runs every step of the calls under way on the way: rings, answers,
hangups, and with them CDRs, recordings, voicemails) and the request is made. The month's invoices
close on their own timer as the clock passes each month's start. The sizes are kept so a history takes
seconds to make (see docs/demo.md).
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Iterator

from ..clock import wire_time
from . import activity
from .activity import Action
from .operator import DemoError, Operator
from .plan import Plan

log = logging.getLogger(__name__)
DAYS = 90
DAY = 86_400
OPEN, CLOSE = 8 * 3600, 18 * 3600


async def generate(op: Operator, plan: Plan, users: tuple[int, ...], end: float, days: int = DAYS) -> Counter[str]:
    """The history of `plan` over the `days` days before `end` (the clock stands at their start): what
    was done, by kind. The clock is left at `end`."""
    rng = random.Random(f"demo-history:{plan.seed}")
    done: Counter[str] = Counter()
    start = end - days * DAY
    for day in range(days):
        for moment, action in sorted(_day(rng, plan, users, start + day * DAY), key=lambda pair: pair[0]):
            await op.control("POST", "/clock", {"set": wire_time(moment), "settle": True})
            done[action.kind if await attempt(op, action) else "refused"] += 1
    await op.control("POST", "/clock", {"set": wire_time(end), "settle": True})
    return done


async def attempt(op: Operator, action: Action) -> bool:
    """Make the request of `action`; False when the server refused it (a 4xx: a user already on a call
    cannot be called through the API), which the history counts and goes on from."""
    send = op.control if action.via == "control" else op.api
    try:
        await send(action.method, action.path, action.body)
    except DemoError as exc:
        log.debug("demo: %s", exc)
        return False
    return True


def _day(rng: random.Random, plan: Plan, users: tuple[int, ...], midnight: float) -> Iterator[tuple[int, Action]]:
    """A day's activity, each with its moment (whole seconds), in the order drawn."""
    weekend = _weekday(midnight) >= 5
    calls = rng.randint(0, 2) if weekend else rng.randint(12, 22)
    for _ in range(calls):
        yield _moment(rng, midnight), activity.call(rng, plan, users)
    for _ in range(0 if weekend else rng.randint(1, 3)):
        asked, reply = activity.text_thread(rng, plan)
        moment = _moment(rng, midnight)
        yield moment, asked
        yield moment + rng.randint(60, 900), reply
    if not weekend and rng.random() < 0.3:
        yield _moment(rng, midnight), activity.fax(rng, plan)


def _moment(rng: random.Random, midnight: float) -> int:
    return int(midnight) + rng.randrange(OPEN, CLOSE)


def _weekday(moment: float) -> int:
    """Monday 0 to Sunday 6 (the epoch began on a Thursday)."""
    return (int(moment) // DAY + 3) % 7
