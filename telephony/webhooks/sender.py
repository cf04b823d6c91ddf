"""The sender: POSTs each pending delivery, signed, and records every attempt as an event.

It works through `PendingDeliveries`: each lane (a webhook and a call, or an SMS) sends its head, and
the next only once the head is delivered or given up, so a receiver gets a call's events in order.
Each head is a timer on the app's scheduler at its due time (at once when queued, at `next_at` for
a retry), so retries follow the controllable clock and survive a restart, whose start derives the
timers again from the pending deliveries. A timer only starts the POST, in a task of the sender's:
lanes of one webhook run side by side up to `[webhooks] in_flight_per_receiver`, and a slow or dead
receiver holds back its own lanes only, never other webhooks, the scheduler or the API.

Two times: an attempt is a domain event, made at its due time on the clock (or, when its lane was
busy, the webhook held or the server down then, at the clock time it could be made), so a move of the
clock makes every retry that falls due on the way, each at its own time, whenever the POSTs before
it come back; its `webhook-timestamp` is transport, the real time of the POST, which receivers check
against their own clocks.

A POST carries the body as queued, `Content-Type: application/json` and the Standard Webhooks
headers (`webhook-id` the event's id, the same on every retry; `webhook-timestamp`; `webhook-signature`),
never follows a redirect, and any 2xx within `timeout_seconds` is a delivery. The attempt is recorded
(status, latency, error, the answer's first 500 characters); after a crash between a POST and its
record the POST is made again (at least once), with the same `webhook-id`. An address the networks
refuse (`urls`: checked again at each POST, since a name may resolve elsewhere by then) is a failed
attempt. A webhook whose receiver has failed every attempt for `[webhooks] disable_after` seconds is
disabled, and the customer's root users are mailed. A fault rule (`faults.Faults`, given as `faults`) may
delay a POST, drop it (a failed attempt with no answer, retried as any) or send it twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import aiohttp
import msgspec

from ..clock import Clock, wire_epoch, wire_time
from ..config import Webhooks as Settings
from ..documents import reads
from ..documents.listing import ReadStore
from ..domain.events.webhooks import DeliveryAttempted
from ..domain.faults import Effects
from ..domain.webhooks import RETRY_SECONDS, sign
from ..eventlog import EventLog, Metadata, NewEvent
from ..eventlog.connection import Connection
from ..mail import Mailer
from ..reactors.scheduler import Job, Timers
from ..security import Sealer
from . import urls
from .configuration import WEBHOOK
from .deliveries import EXCERPT, Attempt, Pending, PendingDeliveries, recorded

log = logging.getLogger(__name__)
SENDER = Metadata(source="webhooks")
USER_AGENT = "telephony-webhooks/1.0"
DeliveryFaults = Callable[[str], Awaitable[Effects | None]]
"""What the fault rules do to a delivery to the webhook named (`faults.Faults.for_delivery`)."""


class Sender:
    def __init__(self, settings: Settings, seed: int, pending: PendingDeliveries, event_log: EventLog,
                 reader: ReadStore, scheduler: Timers, clock: Clock, sealer: Sealer, mailer: Mailer,
                 wall: Callable[[], float] = time.time, faults: DeliveryFaults | None = None) -> None:  # fmt: skip
        """`wall` is real time, for the `webhook-timestamp` of each POST (the clock is the domain's);
        `faults` tells what the fault rules do to a delivery to the webhook it names."""
        self._settings = settings
        self._seed = seed
        self._pending = pending
        self._log = event_log
        self._reader = reader
        self._scheduler = scheduler
        self._clock = clock
        self._sealer = sealer
        self._mailer = mailer
        self._wall = wall
        self._faults = faults
        self._networks = urls.Networks(settings)
        self._session: aiohttp.ClientSession | None = None
        self._limits: dict[int, asyncio.Semaphore] = {}
        self._sending: set[int] = set()
        self._down: dict[int, float] = {}
        """Webhooks whose receiver gave no answer or a 5xx, and until when it is left alone."""
        self._probing: set[int] = set()
        """Webhooks taken for down with an attempt in flight: the probe that tells whether it is back."""
        self._tasks: set[asyncio.Task] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    # --- lanes and timers --------------------------------------------------------------------------

    def kick(self, lane: tuple[int, str], since: float) -> None:
        """Send a lane's head now when it is due, or set its timer at its due time (a retry's). `since`
        is the clock time from which the lane could send (the event or attempt that freed it): the
        attempt is made at its due time or then, whichever is later, however late this is called."""
        head = self._pending.head(lane)
        if head is None or head.id in self._sending:
            return
        due = max(head.due, since)
        if due <= self._clock.time():
            self._scheduler.cancel(_key(head.id))
            asyncio.get_running_loop().call_soon(self._start, head.id, due)
        else:
            self._scheduler.at(due, _key(head.id), self._job(head.id))

    def resume(self, webhook_id: int) -> None:
        """A webhook enabled again: its lanes go on, from now."""
        self._down.pop(webhook_id, None)
        self._wake(webhook_id, self._clock.time())

    def _wake(self, webhook_id: int, since: float) -> None:
        for lane in self._pending.of_webhook(webhook_id):
            self.kick(lane, since)

    def timers(self) -> Iterator[tuple[float, str, Job]]:
        """The timer of every lane's head, derived from the pending deliveries at every start."""
        for lane in list(self._pending.lanes):
            head = self._pending.head(lane)
            if head is not None:
                yield head.due, _key(head.id), self._job(head.id)

    def _job(self, delivery_id: int) -> Job:
        async def start() -> None:
            self._start(delivery_id, self._clock.time())

        return start

    def _start(self, delivery_id: int, at: float) -> None:
        """Start sending a delivery in a task of the sender's, when it is still its lane's head: the
        attempt made at clock time `at`."""
        pending = self._pending.pending.get(delivery_id)
        head = self._pending.head((pending.webhook_id, pending.lane)) if pending else None
        if head is None or head.id != delivery_id or delivery_id in self._sending:
            return  # delivered, given up, or not its turn: the lane's own head is kicked
        webhook_id = head.webhook_id
        if webhook_id in self._down:
            if webhook_id in self._probing or at < self._down[webhook_id]:
                return  # held while the receiver is down: the webhook's probe wakes its lanes again
            self._probing.add(webhook_id)
        self._sending.add(delivery_id)
        self._idle.clear()
        task = asyncio.get_running_loop().create_task(self._send(head, at))
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a webhook delivery failed unexpectedly", exc_info=task.exception())
        if not self._tasks:
            self._idle.set()

    async def idle(self) -> None:
        """Return once no delivery is being sent."""
        await self._idle.wait()

    # --- one attempt -------------------------------------------------------------------------------

    async def _send(self, pending: Pending, at: float) -> None:
        try:
            async with self._limit(pending.webhook_id):
                found = await reads.body(self._reader, "webhook", pending.webhook_id, pending.customer_id)
                webhook = msgspec.json.decode(found) if found else None
                if webhook is not None and not webhook["enabled"]:
                    return  # parked until the webhook is enabled again (`resume`)
                attempt = await self._post(pending, webhook, at)
                record = recorded(attempt, self._seed, self._consequences)
                await self._log.transact(record, SENDER)
        finally:
            self._sending.discard(pending.id)
            self._probing.discard(pending.webhook_id)
        self._heard(pending.webhook_id, attempt, record.result)
        self.kick((pending.webhook_id, pending.lane), attempt.at)  # a retry, or the lane's next delivery

    def _heard(self, webhook_id: int, attempt: Attempt, result: DeliveryAttempted | None) -> None:
        """A receiver that gave no answer or a 5xx is taken for down until the attempt's retry: its
        other lanes wait (one attempt, the probe, goes then), so a dead receiver costs one attempt per
        retry rather than one per call, and holds back only its own deliveries. An answer wakes them."""
        if attempt.status is not None and attempt.status < 500:
            if self._down.pop(webhook_id, None) is not None:
                self._wake(webhook_id, attempt.at)
            return
        retry = result.next_at if result else None
        until = retry if retry is not None else attempt.at + RETRY_SECONDS[0]
        self._down[webhook_id] = until
        self._scheduler.at(until, f"webhook-probe:{webhook_id}", self._probe(webhook_id))

    def _probe(self, webhook_id: int) -> Job:
        async def wake() -> None:
            self._wake(webhook_id, self._clock.time())

        return wake

    def _limit(self, webhook_id: int) -> asyncio.Semaphore:
        if webhook_id not in self._limits:
            self._limits[webhook_id] = asyncio.Semaphore(self._settings.in_flight_per_receiver)
        return self._limits[webhook_id]

    async def _post(self, pending: Pending, webhook: dict[str, Any] | None, at: float) -> Attempt:
        fault = await self._faults(webhook["name"]) if webhook is not None and self._faults is not None else None
        if fault is not None and fault.delay_ms:
            await asyncio.sleep(fault.delay_ms / 1000)
        started = time.perf_counter()
        status, error, excerpt = None, None, ""
        if webhook is None:
            error = "the webhook was deleted"
        elif refused := urls.refusal(webhook["url"], self._networks):
            error = refused
        elif fault is not None and fault.drop:
            error = f"fault {fault.by[-1]}: dropped"
        else:
            body = pending.body.encode()
            secret = self._sealer.unseal(webhook["secret_sealed"])
            stamp = int(self._wall())
            headers = {
                "Content-Type": "application/json",
                "User-Agent": USER_AGENT,
                "webhook-id": pending.event_id,
                "webhook-timestamp": str(stamp),
                "webhook-signature": sign(secret, pending.event_id, stamp, body),
            }
            try:
                status, excerpt = await self._sent(webhook["url"], body, headers)
                if fault is not None and fault.duplicate:
                    with contextlib.suppress(TimeoutError, aiohttp.ClientError):
                        await self._sent(webhook["url"], body, headers)
            except TimeoutError:
                error = "timeout"
            except aiohttp.ClientConnectorCertificateError:
                error = "certificate not trusted"
            except aiohttp.ClientConnectorDNSError as exc:
                error = "address not allowed" if isinstance(exc.os_error, urls.Refused) else type(exc).__name__
            except aiohttp.ClientError as exc:
                error = type(exc).__name__
        latency = (time.perf_counter() - started) * 1000
        return Attempt(delivery_id=pending.id, customer_id=pending.customer_id, attempt=pending.attempts + 1, at=at,
                       status=status, latency_ms=latency, error=error, excerpt=excerpt)  # fmt: skip

    async def _sent(self, url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
        """One POST: the answer's status and the start of its body."""
        async with self.session.post(url, data=body, headers=headers, allow_redirects=False,
                                     timeout=aiohttp.ClientTimeout(total=self._settings.timeout_seconds)
                                     ) as response:  # fmt: skip
            return response.status, (await response.content.read(EXCERPT)).decode(errors="replace")

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = urls.session(self._settings, limit_per_host=self._settings.in_flight_per_receiver)
        return self._session

    def _consequences(self, conn: Connection, delivery: dict[str, Any], attempt: Attempt) -> list[NewEvent]:
        """The webhook's failure streak: noted at its first failure, cleared by a delivery; a streak
        longer than `disable_after` disables the webhook and mails the customer's root users."""
        customer_id = attempt.customer_id
        webhook = reads.documents(conn, "webhook", [delivery["webhook_id"]], customer_id).get(delivery["webhook_id"])
        if webhook is None:
            return []
        changes: dict[str, Any] = {}
        if attempt.delivered:
            if webhook.get("failing_since") is not None:
                changes["failing_since"] = None
        else:
            failing = wire_epoch(webhook.get("failing_since"))
            if failing is None:
                changes["failing_since"] = wire_time(attempt.at)
            elif attempt.at - failing >= self._settings.disable_after and webhook["enabled"]:
                reason = f"Every delivery failed since {webhook['failing_since']} UTC"
                changes.update(enabled=False, updated_at=wire_time(attempt.at), disabled_reason=reason)
        if not changes:
            return []
        events = [NewEvent(stream=f"webhook-{webhook['id']}", event=WEBHOOK.updated(id=webhook["id"], changes=changes))]
        if changes.get("enabled") is False:
            url = urls.displayed(webhook["url"])
            text = (f"The webhook {webhook['name']} ({url}) was disabled: every delivery to it failed "
                    f"since {webhook['failing_since']} UTC. Enable it again once its receiver answers.")  # fmt: skip
            roots = reads.every_document(conn, "user", customer_id, is_root=True)
            events += [self._mailer.message(user["email"], f"Webhook {webhook['name']} disabled", text)
                       for user in roots]  # fmt: skip
        return events

    async def stop(self) -> None:
        """Let the POSTs under way finish and be recorded, then close the connections."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=self._settings.timeout_seconds + 5)
        if self._session is not None:
            await self._session.close()


def _key(delivery_id: int) -> str:
    return f"delivery:{delivery_id}"
