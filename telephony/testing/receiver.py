"""A webhook receiver for a test suite: HTTPS on 127.0.0.1 with a certificate of a test CA the server
trusts (`[webhooks] ca_file`), verifying each delivery's Standard Webhooks signature and keeping it.

`subscribe` makes a customer's webhook to it and keeps the secret. A delivery whose signature does
not verify (or whose time is more than five minutes off) is answered 401 and kept in `rejected`;
each verified one is handed to `handler` when the test sets one (its webhook handler, say: one that
raises is answered 500, so the server retries), kept in `deliveries` and answered 204.
"""

from __future__ import annotations

import hmac
import json
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import trustme
from aiohttp import web

from ..domain.webhooks import sign
from ..threaded import running
from .harness import TelephonyCustomer

TOLERANCE = 300
PATH = "/webhooks"


@dataclass(frozen=True)
class Delivery:
    """A verified delivery: its `webhook-id`, its `webhook-timestamp`, its JSON body, its headers."""

    id: str
    timestamp: int
    body: dict[str, Any]
    headers: dict[str, str]


def verified(secret: str, headers: dict[str, str], raw: bytes, now: float) -> Delivery:
    """The delivery, when its signature is the secret's and its time within five minutes of `now`;
    ValueError otherwise."""
    message_id, stamp = headers["webhook-id"], int(headers["webhook-timestamp"])
    if abs(now - stamp) > TOLERANCE:
        raise ValueError("webhook-timestamp is more than five minutes off")
    expected = sign(secret, message_id, stamp, raw).encode()
    if not any(hmac.compare_digest(given.encode(), expected) for given in headers["webhook-signature"].split()):
        raise ValueError("webhook-signature does not verify")
    return Delivery(message_id, stamp, json.loads(raw), headers)


class WebhookReceiver:
    """The receiver at `url`; `secret` verifies deliveries (set by `subscribe`, or by the test)."""

    def __init__(self) -> None:
        self.url = ""
        self.secret: str | None = None
        self.handler: Callable[[dict[str, Any]], object] | None = None
        self.deliveries: list[Delivery] = []
        self.rejected: list[tuple[dict[str, str], bytes, str]] = []
        self._arrived = threading.Condition()

    def subscribe(self, customer: TelephonyCustomer, events: tuple[str, ...] | list[str] = ("call.state",),
                  name: str = "test receiver") -> dict[str, Any]:  # fmt: skip
        """A webhook of `customer` to this receiver for `events`; its record (the secret is kept here)."""
        made = customer.server.control.with_headers(customer.headers).request(
            "POST", "/_telephony/webhooks", {"name": name, "url": self.url, "events": list(events)}
        )["data"]
        self.secret = made["secret"]
        return dict(made)

    def names(self) -> list[str]:
        """The `event_name` of each delivery, in arrival order."""
        return [d.body.get("event_name", "") for d in self.deliveries]

    def wait_for(self, event_name: str, timeout: float = 10.0, **match: Any) -> Delivery:
        """The first delivery of `event_name` whose body holds every field of `match`, waiting up to
        `timeout` seconds of real time for it to arrive; AssertionError naming what came otherwise."""

        def found() -> Delivery | None:
            return next((d for d in self.deliveries if d.body.get("event_name") == event_name
                         and all(d.body.get(k) == v for k, v in match.items())), None)  # fmt: skip

        with self._arrived:
            if self._arrived.wait_for(lambda: found() is not None, timeout):
                return found()  # type: ignore[return-value]
        wanted = event_name + "".join(f" {k}={v!r}" for k, v in match.items())
        raise AssertionError(f"no delivery {wanted} within {timeout} s (got: {', '.join(self.names()) or 'none'}; "
                             f"rejected: {len(self.rejected)})")  # fmt: skip

    async def _receive(self, request: web.Request) -> web.Response:
        raw = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            if self.secret is None:
                raise ValueError("the receiver has no secret: subscribe it, or set its secret")
            delivery = verified(self.secret, headers, raw, time.time())
        except (KeyError, ValueError) as exc:
            with self._arrived:
                self.rejected.append((headers, raw, str(exc)))
            return web.Response(status=401, text=str(exc))
        if self.handler is not None:
            try:
                self.handler(delivery.body)
            except Exception as exc:  # the test's handler failed: the server is told, and retries
                return web.Response(status=500, text=f"the handler failed: {exc!r}")
        with self._arrived:
            self.deliveries.append(delivery)
            self._arrived.notify_all()
        return web.Response(status=204)

    @contextmanager
    def serving(self, ca: trustme.CA) -> Iterator[WebhookReceiver]:
        """Receive at a free port of 127.0.0.1 over HTTPS, with a certificate `ca` issued."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
        app = web.Application()
        app.router.add_post(PATH, self._receive)
        with running(app, context=context, name="telephony-webhook-receiver") as (host, port):
            self.url = f"https://{host}:{port}{PATH}"
            yield self
