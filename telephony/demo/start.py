"""`telephony serve --demo`: the demo's settings and clock, decided before the app opens its data dir,
and what runs once it listens (`context`): the tenant and its history on a new demo, then the live
traffic.

A new demo's app starts on a reproducible clock at the history's first day, its secrets drawn from the
seed, so the server answers at once (health included) while the history is made in the background, in
clock time that only the history moves, the same log for the same seed. Then the clock flows from real
time on, secrets come from the system again, and the live traffic starts. A demo dir made before
starts on real time at once, with the live traffic.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import msgspec
from aiohttp import web

from ..clock import Clock, wire_time
from ..config import Bootstrap, Settings
from ..eventlog import store
from ..keys import CLOCK, ENTROPY, EVENT_LOG, SCHEDULER
from ..security import Entropy
from . import history, marker, tenant
from .operator import Operator
from .plan import PASSWORD, Plan, plan_for
from .traffic import LiveTraffic

log = logging.getLogger(__name__)
DEFAULT_SEED, DEFAULT_RATE, MAX_RATE = 1, 6.0, 600.0
USER_AGENT = "telephony-demo"
Print = Callable[[str], None]


@dataclass(frozen=True)
class Demo:
    """A demo about to start: its settings (the plan's company as the first customer), its clock, and
    its mark when the data dir holds a finished demo already."""

    settings: Settings
    clock: Clock
    entropy: Entropy | None
    """A new demo's secrets are drawn from its seed while its history is made (then from the system)."""
    plan: Plan
    rate: float
    control_key: str
    """The key made for this run (printed), or "" when the configuration sets one."""
    mark: marker.Mark | None
    history_end: float
    days: int = history.DAYS


def prepare(settings: Settings, seed: int | None = None, rate: float = DEFAULT_RATE, *,
            today: float | None = None, days: int = history.DAYS) -> Demo:  # fmt: skip
    """The demo of `settings`' data dir; NotADemoDir when the dir may not hold one. A new demo's dir is
    marked as a demo's at once, and its history ends at the start of `today` (UTC; the current day by
    default), so the same seed on the same day makes the same history."""
    mark = marker.check(settings.data_dir, seed)
    seed = mark.seed if mark else (DEFAULT_SEED if seed is None else seed)
    plan = plan_for(seed)
    made_key = "" if settings.control.key else secrets.token_hex(20)
    replace = msgspec.structs.replace
    settings = replace(
        settings,
        bootstrap=Bootstrap(customer_name=plan.company, admin_email=plan.root.email, admin_password=PASSWORD),
        simulator=replace(settings.simulator, seed=seed),
        eventlog=replace(settings.eventlog, synchronous="NORMAL"),
        control=replace(settings.control, key=settings.control.key or made_key),
    )
    end = (time.time() if today is None else today) // history.DAY * history.DAY
    if mark:
        return Demo(settings, Clock(), None, plan, rate, made_key, mark, end, days)
    start = end - days * history.DAY
    marker.write(settings.data_dir, marker.Mark(seed))  # before the app writes anything there
    return Demo(settings, Clock.reproducible(start), Entropy(seed), plan, rate, made_key, mark, end, days)


def context(demo: Demo, base: str, say: Print = print) -> Callable[[web.Application], AsyncIterator[None]]:
    """The demo's cleanup context on an app listening at `base`: its run, a task owned by the app."""

    async def demo_running(app: web.Application) -> AsyncIterator[None]:
        task = asyncio.create_task(run(app, demo, base, say))
        yield
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    return demo_running


async def run(app: web.Application, demo: Demo, base: str, say: Print = print) -> None:
    """Make a new demo's tenant and history, then run the live traffic until cancelled; a failure is
    logged and said, and the server goes on without the traffic."""
    _logins(demo, base, say)
    try:
        await _run(app, demo, base, say)
    except Exception as exc:
        log.exception("the demo stopped")
        say(f"demo: stopped: {exc}")


async def _run(app: web.Application, demo: Demo, base: str, say: Print) -> None:
    plan, settings = demo.plan, demo.settings
    async with aiohttp.ClientSession(headers={"User-Agent": USER_AGENT}) as session:
        op = Operator(session, base, settings.api.service, settings.control.key, f"demo-{plan.seed}")
        await _listening(session, base)
        if demo.mark is None:
            say(f"demo: making {demo.days} days of history for {plan.company} (seed {plan.seed})...")
            users = await make(app, demo, op)
            made = marker.read(settings.data_dir)
            if made and made.history:
                say(f"demo: history made in {made.history.seconds:g} s: {_counts(made.history.made)}")
            app[ENTROPY].forget_seed()
            app[CLOCK].flow()
            await op.control("POST", "/clock", {"set": wire_time(time.time())})
        else:
            users = demo.mark.users
            await tenant.sign_in(op, plan, f"demo {secrets.token_hex(4)}")
        traffic = LiveTraffic(op, plan, users, app[SCHEDULER], demo.rate)
        traffic.start()
        say(f"demo: live traffic, {demo.rate:g} calls a minute (seed {plan.seed}); open {base}/_telephony/dashboard")
        try:
            await asyncio.Event().wait()
        finally:
            traffic.stop()


async def make(app: web.Application, demo: Demo, op: Operator) -> tuple[int, ...]:
    """The tenant and its history; then the data dir is marked as a finished demo's."""
    data_dir: Path = demo.settings.data_dir
    began = time.monotonic()
    built = await tenant.build(op, demo.plan)
    made = await history.generate(op, demo.plan, built.users, demo.history_end, demo.days)
    position, head = await app[EVENT_LOG].query(store.head)
    seconds = round(time.monotonic() - began, 1)
    done = marker.History(position, head.hex(), dict(made), seconds)
    marker.write(data_dir, marker.Mark(demo.plan.seed, built.customer_id, built.users, done))
    return built.users


async def _listening(session: aiohttp.ClientSession, base: str) -> None:
    """Wait for the server's sockets to take connections (the app starts before they do)."""
    for _ in range(500):
        try:
            async with session.get(base + "/_telephony/health"):
                return
        except aiohttp.ClientConnectionError:
            await asyncio.sleep(0.01)


def _counts(made: dict[str, int]) -> str:
    return ", ".join(f"{count} {kind}" for kind, count in made.items())


def _logins(demo: Demo, base: str, say: Print) -> None:
    plan, service = demo.plan, demo.settings.api.service
    say(f"demo: {plan.company}, {len(plan.people)} users, every password {PASSWORD!r}")
    say(f"  root:      {plan.root.email}")
    for department in ("Sales", "Support"):
        lead = plan.people[plan.in_department(department)[0]]
        say(f"  {department.lower() + ':':<10} {lead.email} (team lead)")
    say(f"  control key (X-Control-Key): {demo.control_key or 'the configured [control] key'}")
    say(f"  dashboard: {base}/_telephony/dashboard")
    say(f"  API:       {base}/v1.2/{service}  and  {base}/v1.1/{service}")
    say(f"  API docs:  {base}/_telephony/docs")
