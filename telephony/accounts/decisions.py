"""Account decisions for the writer: fold the state, ask the rules, record what they say.

Each function builds a `decide(conn)` that the writer runs inside its transaction. It loads the
aggregates it changes (customers and users folded from their streams, a token from its projection
row and its stream's version), reads the facts across streams it needs through the projections'
read functions, calls the pure rules of `domain/accounts/` and returns the events they decide,
guarded by those versions. Slow work (password hashing, sealing), random ids
and times come in from the caller. A user's SIP clients follow the rules of `domain/sip_clients.py`:
a new user registers its plan's `sip_clients` in the transaction that creates it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..documents import reads, references
from ..domain import accounts as rules
from ..domain import sip_clients as sip
from ..domain.bodies import changed
from ..domain.errors import Invalid, Problems
from ..eventlog import Decision, NewEvent, store
from ..eventlog.connection import Connection
from ..projections.sequences import next_id
from . import projections as read
from .models import USER_REFERENCES, User

FIRST_USER_ID = 1_000_001
FIRST_CUSTOMER_ID = 100_001
USERS = "user"
Decide = Callable[[Connection], list[NewEvent]]


@dataclass(frozen=True, kw_only=True)
class UserPlan:
    """A user to create, its secrets already hashed or sealed, its document built but for ids."""

    email: str
    password_hash: str
    sip_password_sealed: str
    created_at: str
    is_root: bool = False
    roles: tuple[str, ...] = ()
    attributes: dict[str, Any] = field(default_factory=dict)
    sip_clients: int = 0
    """Simulated SIP clients the user starts with, registered with it."""

    def body(self, user_id: int, customer_id: int, *, initial: bool) -> dict[str, Any]:
        """The user's whole document: its attributes, what the platform sets, defaults for the rest."""
        user = User(**self.attributes, id=user_id, email=self.email, is_root=self.is_root, is_initial=initial,
                    roles=list(self.roles), created_at=self.created_at, customer=customer_id,
                    customer_id_id=customer_id)  # fmt: skip
        return msgspec.to_builtins(user)


# --- state, folded from streams ----------------------------------------------------------------------


def customer_of(conn: Connection, customer_id: int) -> rules.Customer:
    return rules.fold(rules.evolve_customer, rules.Customer(customer_id),
                      store.stream_events(conn, rules.customer_stream(customer_id)))  # fmt: skip


def user_of(conn: Connection, user_id: int) -> rules.User:
    return rules.fold(rules.evolve_user, rules.User(user_id), store.stream_events(conn, rules.user_stream(user_id)))


def token_of(conn: Connection, token_id: str) -> rules.Token:
    """A token's state from its projection row and its stream's version: a token used every minute
    for a year has half a million `token.touched` events, too many to fold on the writer's thread."""
    version = store.stream_version(conn, rules.token_stream(token_id))
    facts = read.token_facts(conn, token_id)
    if facts is None:
        return rules.Token(token_id, version=version)
    user_id, kind, revoked = facts
    return rules.Token(token_id, version=version, user_id=user_id, kind=kind, revoked=revoked)


def customer_exists(conn: Connection, customer_id: int) -> bool:
    return customer_of(conn, customer_id).exists


def clients_of(conn: Connection, user_id: int) -> sip.SipClients:
    """A user's SIP registrations, live while the user and its customer are."""
    user = user_of(conn, user_id)
    live = user.exists and customer_exists(conn, user.customer_id)
    return sip.folded(user_id, user.customer_id, live, store.stream_events(conn, sip.sip_stream(user_id)))


# --- customers and users -----------------------------------------------------------------------------


def user_created(conn: Connection, customer_id: int, plan: UserPlan, *, initial: bool = False,
                 user_id: int | None = None) -> list[NewEvent]:  # fmt: skip
    """The events of a new user (an id is allocated unless given), for a decision or an import."""
    return _new_user(conn, customer_of(conn, customer_id), user_id, plan, initial=initial)


def _new_user(conn: Connection, customer: rules.Customer, user_id: int | None, plan: UserPlan, *,
              initial: bool) -> list[NewEvent]:  # fmt: skip
    """A user of `customer` and the registrations of its SIP clients."""
    user_id = user_id or next_id(conn, "user", FIRST_USER_ID)
    made = rules.register_user(
        customer, user_of(conn, user_id), plan.body(user_id, customer.id, initial=initial), plan.password_hash,
        plan.sip_password_sealed, email_in_use=read.email_in_use(conn, plan.email),
    )  # fmt: skip
    clients = sip.folded(user_id, customer.id, True, store.stream_events(conn, sip.sip_stream(user_id)))
    return made + sip.register_defaults(clients, plan.sip_clients, plan.created_at)


def customer_opened(conn: Connection, customer_id: int, name: str, created_at: str) -> list[NewEvent]:
    """The events of a customer of a given id (an import's), which must never have been used."""
    return rules.open_customer(customer_of(conn, customer_id), name, created_at)


def devices_remembered(conn: Connection, user_id: int, device_digests: Iterable[str]) -> list[NewEvent]:
    """The events that make a user's login remember devices, for an import."""
    return rules.remember_devices(user_of(conn, user_id), device_digests)


def open_customer(name: str, admin: UserPlan) -> Decide:
    """A customer and its root user."""

    def decide(conn: Connection) -> list[NewEvent]:
        customer_id = next_id(conn, "customer", FIRST_CUSTOMER_ID)
        opened = rules.open_customer(customer_of(conn, customer_id), name, admin.created_at)
        customer = rules.Customer(customer_id, version=1, name=name)
        return opened + _new_user(conn, customer, None, admin, initial=True)

    return decide


def create_user(customer_id: int, plan: UserPlan) -> Decide:
    """A user of the customer; the records its attributes name must be the customer's, its extension
    nobody else's there, its email nobody's: every problem at once."""

    def decide(conn: Connection) -> list[NewEvent]:
        problems = references.problems(conn, USER_REFERENCES, customer_id, plan.attributes, plan.attributes.keys())
        problems += _extension_taken(conn, customer_id, None, plan.attributes)
        try:
            made = user_created(conn, customer_id, plan)
        except Invalid as exc:
            made, problems = [], [*exc.problems, *problems]
        if problems:
            raise Invalid.of(problems)
        return made

    return decide


def _extension_taken(conn: Connection, customer_id: int, user_id: int | None,
                     fields: Mapping[str, Any]) -> Problems:  # fmt: skip
    """An extension rings one user of a customer: a problem when another has the one `fields` set."""
    ext = fields.get("ext")
    holders = (
        [u["id"] for u in reads.every_document(conn, USERS, customer_id, ext=ext) if u["id"] != user_id] if ext else []
    )
    return [("ext", f"Extension {ext} is already used by user {holders[0]}")] if holders else []


def close_customer(customer_id: int) -> Decide:
    return lambda conn: rules.close_customer(
        customer_of(conn, customer_id), read.live_tokens(conn, customer_id=customer_id)
    )


def change_users(customer_id: int, changes: Mapping[int, Mapping[str, Any]],
                 echoed: Mapping[int, Mapping[str, Any]] | None = None) -> Decision[list[dict]]:  # fmt: skip
    """Changes keyed by user id (and the read-only fields sent back, by id): every user must be the
    customer's, every record a change names too, an extension nobody else's, and every read-only field
    as it is, or nothing changes. The decision keeps the changed user documents, in the order of `changes`."""

    def decide(conn: Connection) -> tuple[list[NewEvent], list[dict]]:
        changing: list[NewEvent] = []
        for user_id, fields in changes.items():
            changing.extend(rules.change_user(user_of(conn, user_id), customer_id, fields))
        current = reads.documents(conn, USERS, list(changes), customer_id)
        documents, problems = [], []
        for user_id, fields in changes.items():
            documents.append({**current[user_id], **fields})
            problems += changed((echoed or {}).get(user_id, {}), current[user_id])
            problems += references.problems(conn, USER_REFERENCES, customer_id, documents[-1], fields.keys())
            problems += _extension_taken(conn, customer_id, user_id, fields)
        if problems:
            raise Invalid.of(problems)
        return changing, documents

    return Decision(decide)


def remove_user(customer_id: int, actor_id: int, user_id: int, table: references.Table) -> Decide:
    """The user goes, with its live tokens; every record naming it drops it (`table`: who names what)."""

    def decide(conn: Connection) -> list[NewEvent]:
        live = read.live_tokens(conn, user_id=user_id)
        removed = rules.remove_user(user_of(conn, user_id), customer_id, actor_id, live)
        return removed + references.unlink(conn, table, customer_id, USERS, [user_id])

    return decide


# --- SIP clients -------------------------------------------------------------------------------------


def register_client(user_id: int, user_agent: str | None, contact: str | None, at: str) -> Decide:
    """A SIP client of the user registers under the user's next registration id; a missing user agent or
    contact is a simulated softphone's."""

    def decide(conn: Connection) -> list[NewEvent]:
        clients = clients_of(conn, user_id)
        rid = clients.next_id
        agent, contact_ = user_agent or sip.DEFAULT_USER_AGENT, contact or sip.default_contact(user_id, rid)
        return sip.register(clients, rid, agent, contact_, at)

    return decide


def unregister_client(user_id: int, registration_id: int) -> Decide:
    return lambda conn: sip.unregister(clients_of(conn, user_id), registration_id)


# --- the login family --------------------------------------------------------------------------------


def issue_challenge(user_id: int, nonce_digest: str, code_hash: str, expires_at: float,
                    device_digest: str | None) -> Decide:  # fmt: skip
    return lambda conn: rules.issue_challenge(
        user_of(conn, user_id), nonce_digest, code_hash, expires_at, device_digest
    )


def pass_challenge(user_id: int, nonce_digest: str, *, code_matches: bool, now: float, device_digest: str | None,
                   add_device: bool) -> Decide:  # fmt: skip
    return lambda conn: rules.pass_challenge(user_of(conn, user_id), nonce_digest, code_matches=code_matches, now=now,
                                             device_digest=device_digest, add_device=add_device)  # fmt: skip


def request_reset(user_id: int, reset_digest: str, expires_at: float) -> Decide:
    return lambda conn: rules.request_reset(user_of(conn, user_id), reset_digest, expires_at)


def complete_reset(user_id: int, reset_digest: str, password_hash: str, now: float) -> Decide:
    return lambda conn: rules.complete_reset(user_of(conn, user_id), reset_digest, password_hash, now,
                                             read.live_tokens(conn, user_id=user_id))  # fmt: skip


# --- tokens ------------------------------------------------------------------------------------------


def issue_token(token_id: str, user_id: int, grant: Mapping[str, Any]) -> Decide:
    """A token; a named one (API token or key) must not share its name with a live one of its kind."""

    def decide(conn: Connection) -> list[NewEvent]:
        name = grant.get("name")
        in_use = name is not None and read.token_name_in_use(conn, user_id, grant["kind"], name)
        return rules.issue_token(token_of(conn, token_id), user_of(conn, user_id), grant, name_in_use=in_use)

    return decide


def touch_token(token_id: str, at: str, epoch: float) -> Decide:
    return lambda conn: rules.touch_token(token_of(conn, token_id), at, epoch)


def revoke_tokens(token_ids: Iterable[str], reason: str) -> Decide:
    wanted = list(token_ids)
    return lambda conn: [new for t in wanted for new in rules.revoke_token(token_of(conn, t), reason)]
