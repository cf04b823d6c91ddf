"""Account operations: bootstrap, customers, users, tokens, logins, resets, token expiry.

Handlers call these; each prepares slow secrets, random ids and times off the writer, then lets a
decision of `decisions` (the rules of `domain/accounts.py` over folded state) run inside the
writer's transaction.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from ..clock import Clock, wire_time
from ..config import Settings
from ..documents.listing import ReadStore
from ..domain import acl
from ..domain.events.accounts import CustomerCreated, UserCreated
from ..domain.schemas import User
from ..eventlog import EventLog, Metadata
from ..mail import Mailer
from ..reactors.scheduler import Timers
from ..security import SYSTEM, Entropy, Sealer, hash_password, new_token
from ..security import digest as digest_of
from . import decisions, projections
from .expiry import TokenExpiry
from .sessions import Activity, SessionIndex
from .throttle import Throttle


@dataclass
class Issued:
    token: str
    token_id: str
    user_id: int
    created_at: str


class Accounts:
    def __init__(self, settings: Settings, log: EventLog, reader: ReadStore, clock: Clock,
                 sealer: Sealer, index: SessionIndex, mailer: Mailer, scheduler: Timers,
                 entropy: Entropy = SYSTEM) -> None:  # fmt: skip
        """`entropy` draws salts, tokens and token ids (the system's, unless a reproducible run seeds it)."""
        self.settings = settings
        self.log = log
        self.reader = reader
        self.clock = clock
        self.sealer = sealer
        self.index = index
        self.activity = Activity()
        self.expiry = TokenExpiry(index, self.activity, scheduler, self.expire)
        self.mailer = mailer
        self.throttle = Throttle(settings.auth, clock)
        self.entropy = entropy

    # --- users and customers -------------------------------------------------------------------

    async def plan_user(self, email: str, password: str, *, is_root: bool = False, roles: tuple[str, ...] = (),
                        attributes: dict[str, Any] | None = None) -> decisions.UserPlan:  # fmt: skip
        """A new user; it starts with `[simulator] default_registrations` SIP clients unless its attributes
        say how many (`nb_sip_locations`)."""
        password_hash = await self.hashed(password)
        attributes = dict(attributes or {})
        sip_clients = attributes.pop("nb_sip_locations", self.settings.simulator.default_registrations)
        sip_password = new_token(self.entropy)[:16]
        return decisions.UserPlan(
            email=email, password_hash=password_hash, sip_password_sealed=self.sealer.seal(sip_password),
            created_at=wire_time(self.clock.now()), is_root=is_root, roles=roles, attributes=attributes,
            sip_clients=sip_clients,
        )  # fmt: skip

    async def hashed(self, password: str) -> str:
        """A password's scrypt hash, computed off the loop; its salt is drawn here, in request order (at
        the light cost of a seeded entropy's: `security`)."""
        seeded = self.entropy.seeded
        return await asyncio.to_thread(hash_password, password, self.entropy.bytes(16), seeded=seeded)

    async def create_customer(self, name: str, email: str, password: str, meta: Metadata) -> tuple[dict, dict]:
        admin = await self.plan_user(email, password, is_root=True, roles=("ROLE_ROOT_ADMIN",))
        customer, user, *_registered = await self.log.transact(decisions.open_customer(name, admin), meta)
        assert isinstance(customer.event, CustomerCreated) and isinstance(user.event, UserCreated)
        return msgspec.structs.asdict(customer.event), _with_clients(user.event.body, admin)

    async def create_user(self, customer_id: int, email: str, password: str, attributes: dict[str, Any],
                          meta: Metadata) -> dict:  # fmt: skip
        """A user of the customer with its attributes as stored (`roles` and `is_root` among them)."""
        given = dict(attributes)
        roles, is_root = tuple(given.pop("roles", ())) or (acl.DEFAULT_ROLE,), bool(given.pop("is_root", False))
        plan = await self.plan_user(email, password, is_root=is_root, roles=roles, attributes=given)
        created, *_registered = await self.log.transact(decisions.create_user(customer_id, plan), meta)
        assert isinstance(created.event, UserCreated)
        return _with_clients(created.event.body, plan)

    async def bootstrap(self) -> None:
        """Create the first customer and its root user when the log is empty."""
        if self.log.position == 0:
            boot = self.settings.bootstrap
            await self.create_customer(boot.customer_name, boot.admin_email, boot.admin_password,
                                       Metadata(source="bootstrap"))  # fmt: skip

    async def first_customer(self) -> int:
        """The first live customer's id (the bootstrap one, unless it was closed); 0 when none is left."""
        rows = await self.reader.execute_fetchall(*projections.first_customer())
        return int(rows[0][0]) if rows else 0

    # --- SIP clients ---------------------------------------------------------------------------

    async def register_client(self, user_id: int, user_agent: str | None, contact: str | None,
                              meta: Metadata) -> dict:  # fmt: skip
        """A SIP client of the user registers now; the `sip.registered` event's fields."""
        decide = decisions.register_client(user_id, user_agent, contact, wire_time(self.clock.now()))
        (registered,) = await self.log.transact(decide, meta)
        return msgspec.structs.asdict(registered.event)

    async def unregister_client(self, user_id: int, registration_id: int, meta: Metadata) -> None:
        await self.log.transact(decisions.unregister_client(user_id, registration_id), meta)

    # --- tokens --------------------------------------------------------------------------------

    def inactivity_for(self, version: str | None) -> int:
        auth = self.settings.auth
        return auth.v11_inactivity_seconds if version == "v1.1" else auth.v12_inactivity_seconds

    async def issue(self, user_id: int, customer_id: int, kind: str, meta: Metadata, *, name: str | None = None,
                    expiry: int = 0, inactivity: int = 0, host: str | None = None,
                    user_agent: str | None = None) -> Issued:  # fmt: skip
        token, token_id, now = new_token(self.entropy), self.entropy.bytes(8).hex(), self.clock.now()
        created_at = wire_time(now)
        grant: dict[str, Any] = {
            "digest": digest_of(token), "sealed": self.sealer.seal(token) if kind != "login" else None,
            "customer_id": customer_id, "kind": kind, "expiry": expiry, "inactivity": inactivity,
            "api_version": meta.api_version, "created_at": created_at, "issued_epoch": now.timestamp(),
            "name": name, "host": host, "user_agent": user_agent,
        }  # fmt: skip
        await self.log.transact(decisions.issue_token(token_id, user_id, grant), meta)
        self.expiry.watch(token_id)
        return Issued(token, token_id, user_id, created_at)

    async def revoke(self, token_ids: list[str], reason: str, meta: Metadata) -> None:
        if token_ids:
            await self.log.transact(decisions.revoke_tokens(token_ids, reason), meta)

    async def touch(self, token_id: str, now: float) -> None:
        await self.log.transact(decisions.touch_token(token_id, wire_time(now), now))

    async def expire(self, token_id: str) -> None:
        """Record that a token outlived its lifetime (its expiry timer found it so)."""
        await self.revoke([token_id], "expired", Metadata(source="scheduler"))

    def unseal(self, sealed: str | None) -> str | None:
        return self.sealer.unseal(sealed) if sealed else None

    async def send_mail(self, to: str, subject: str, body: str, meta: Metadata) -> None:
        await self.mailer.send(to, subject, body, meta)


async def open_sealer(data_dir: Path, log: EventLog, entropy: Entropy = SYSTEM, clock: Clock | None = None) -> Sealer:
    """The data dir's sealer, its key made for an empty log, else checked against a secret the log holds;
    it draws from `entropy`, and reads real time from `clock` (the system's when none is given)."""
    sealed = await log.query(projections.a_sealed_secret)
    wall = clock.wall if clock is not None else time.time
    return Sealer.for_data_dir(data_dir, written=log.position > 0, sealed=sealed, entropy=entropy, wall=wall)


def _with_clients(body: User, plan: decisions.UserPlan) -> dict:
    """A new user's document as its creation left it: with the SIP clients registered beside it."""
    return {**msgspec.to_builtins(body), "nb_sip_locations": plan.sip_clients}
