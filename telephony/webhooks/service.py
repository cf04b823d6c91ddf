"""Webhooks as the app uses them: configuration (checked URLs, sealed secrets), the sender, the call
flow view, and the webhooks `[webhooks] hooks` makes at start."""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
import msgspec

from ..clock import Clock, wire_time
from ..config import Webhooks as Settings
from ..documents import reads
from ..documents.listing import ReadStore
from ..domain import webhooks as hooks
from ..domain.calls.call import Call, stream_of
from ..domain.calls.fold import evolve
from ..domain.errors import Invalid
from ..domain.events.calls import CallEvent, CallPlaced
from ..eventlog import EventLog, Metadata
from ..security import SYSTEM, Entropy, Sealer
from . import configuration, deliveries, urls
from .sender import Sender

log = logging.getLogger(__name__)
CONFIGURED = Metadata(source="config")


class Webhooks:
    def __init__(self, settings: Settings, event_log: EventLog, reader: ReadStore, clock: Clock, sealer: Sealer,
                 sender: Sender, entropy: Entropy = SYSTEM) -> None:  # fmt: skip
        """`entropy` draws signing secrets (the system's, unless a reproducible run seeds it)."""
        self.settings = settings
        self.sender = sender
        self._log = event_log
        self._reader = reader
        self._clock = clock
        self._sealer = sealer
        self._probes: aiohttp.ClientSession | None = None
        self._entropy = entropy

    def _now(self) -> str:
        return wire_time(self._clock.now())

    async def checked(self, url: str) -> str:
        """A URL the rules allow, answering HTTPS requests now."""
        if self._probes is None:
            self._probes = urls.session(self.settings)
        return await urls.checked(url, self.settings, self._probes)

    async def create(self, customer_id: int, body: configuration.WebhookCreate, meta: Metadata,
                     secret: str | None = None, probe: bool = True) -> dict[str, Any]:  # fmt: skip
        """A new webhook, answered with its secret (the only time it is shown)."""
        if probe:
            await self.checked(body.url)
        else:
            urls.allowed(body.url, self.settings)
        secret = secret or hooks.new_secret(self._entropy.bytes(32))
        made = configuration.create(customer_id, body, self._sealer.seal(secret), self._now())
        await self._log.transact(made, meta)
        return configuration.shown(made.result, secret)

    async def change(self, customer_id: int, name: str, changes: dict[str, Any], meta: Metadata) -> dict[str, Any]:
        if "url" in changes:
            await self.checked(changes["url"])
        changed = configuration.change(customer_id, name, changes, self._now())
        await self._log.transact(changed, meta)
        if changes.get("enabled"):
            self.sender.resume(changed.result["id"])
        return configuration.shown(changed.result)

    async def rotate(self, customer_id: int, name: str, meta: Metadata) -> dict[str, Any]:
        """A new signing secret, shown in the answer only."""
        secret = hooks.new_secret(self._entropy.bytes(32))
        changed = configuration.change(customer_id, name, {"secret_sealed": self._sealer.seal(secret)}, self._now())
        await self._log.transact(changed, meta)
        return configuration.shown(changed.result, secret)

    async def delete(self, customer_id: int, name: str, meta: Metadata) -> None:
        await self._log.transact(configuration.delete(customer_id, name), meta)

    async def redeliver(self, customer_id: int, delivery_id: int, meta: Metadata) -> dict[str, Any]:
        again = deliveries.redelivered(customer_id, delivery_id, self._clock.time())
        await self._log.transact(again, meta)
        return again.result

    async def configure(self, default_customer: int) -> None:
        """Make or bring up to date the webhooks `[webhooks] hooks` names (no probe: a demo's receiver
        may start after the server)."""
        for hook in self.settings.hooks:
            customer_id = hook.customer_id or default_customer
            try:
                body = msgspec.convert({"name": hook.name, "url": hook.url, "events": hook.events,
                                        "enabled": hook.enabled}, configuration.WebhookCreate)  # fmt: skip
                found = await reads.bodies_by(self._reader, configuration.KIND, "name", [hook.name], customer_id)
                if not found:
                    await self.create(customer_id, body, CONFIGURED, hook.secret or None, probe=False)
                    continue
                current = msgspec.json.decode(next(iter(found.values())))
                changes = {k: v for k, v in msgspec.structs.asdict(body).items() if current.get(k) != v}
                if hook.secret and self._sealer.unseal(current["secret_sealed"]) != hook.secret:
                    changes["secret_sealed"] = self._sealer.seal(hook.secret)
                if changes:
                    changed = configuration.change(customer_id, hook.name, changes, self._now())
                    await self._log.transact(changed, CONFIGURED)
            except (Invalid, msgspec.ValidationError) as exc:
                log.error("[webhooks] hooks %r cannot be made: %s", hook.name, exc)

    async def call_flow(self, call_id: int, customer_id: int) -> dict[str, Any] | None:
        """A call's flow (the spec's call flow view): its states in time, and each of its events with
        every delivery of it and their attempts; None for a call that is not the customer's."""
        recorded = await self._log.read_stream(stream_of(call_id))
        placed = recorded[0].event if recorded else None
        if not isinstance(placed, CallPlaced) or placed.customer_id != customer_id:
            return None
        sent: dict[str, list[dict]] = {}
        async for body in reads.each_with(self._reader, deliveries.KIND, customer_id, "call_id", call_id):
            delivery = msgspec.json.decode(body)
            sent.setdefault(delivery["event_id"], []).append(
                {k: v for k, v in delivery.items() if k not in ("body", "lane", "event_id", "call_id")}
            )
        call, states, events = Call(id=call_id), list[dict[str, Any]](), list[dict[str, Any]]()
        for event in recorded:
            changed = event.event
            assert isinstance(changed, CallEvent)
            before, call = call, evolve(call, changed)
            if not states or states[-1]["state"] != call.state:
                states.append({"state": call.state, "at": wire_time(changed.at)})
            for n, name in enumerate(hooks.events_of(changed, before, call)):
                event_id = f"evt_{event.position}_{n}"
                events.append({"event_id": event_id, "event_name": name, "event_time": wire_time(changed.at),
                               "state": call.state, "deliveries": sent.get(event_id, [])})  # fmt: skip
        return {"call_id": call_id, "states": states, "events": events}

    async def stop(self) -> None:
        await self.sender.stop()
        if self._probes is not None:
            await self._probes.close()
