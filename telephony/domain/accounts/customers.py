"""A customer account: opened once, closed once (its users' live tokens die with it)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..errors import Invalid, Unknown
from ..events import Event, NewEvent
from ..events.accounts import CustomerCreated, CustomerDeleted
from .tokens import revocations


def customer_stream(customer_id: int) -> str:
    return f"customer-{customer_id}"


@dataclass(frozen=True)
class Customer:
    id: int
    version: int = 0
    name: str = ""
    deleted: bool = False

    @property
    def exists(self) -> bool:
        return self.version > 0 and not self.deleted


def evolve_customer(state: Customer, event: Event) -> Customer:
    state = replace(state, version=state.version + 1)
    match event:
        case CustomerCreated(name=name):
            return replace(state, name=name)
        case CustomerDeleted():
            return replace(state, deleted=True)
    return state


def open_customer(customer: Customer, name: str, created_at: str) -> list[NewEvent]:
    """A new customer account; its id must never have been used."""
    if customer.version:
        raise Invalid.field("id", f"Customer {customer.id} exists already")
    opened = CustomerCreated(id=customer.id, name=name, created_at=created_at)
    return [NewEvent(stream=customer_stream(customer.id), event=opened, expected_version=0)]


def close_customer(customer: Customer, live_tokens: Iterable[str]) -> list[NewEvent]:
    """The customer is deleted; every live token of its users dies with it."""
    require_customer(customer)
    closed = NewEvent(stream=customer_stream(customer.id), event=CustomerDeleted(id=customer.id),
                      expected_version=customer.version)  # fmt: skip
    return [closed, *revocations(live_tokens, "customer_deleted")]


def require_customer(customer: Customer) -> None:
    if not customer.exists:
        raise Unknown(f"Customer {customer.id} not found")
