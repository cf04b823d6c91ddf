"""A demo tenant's plan as data, drawn from a seed: the company, its departments and people, its numbers
and where they ring, the queues, the ring group, the IVR and the contacts.

Nothing here does I/O: `plan_for(seed)` is the same plan for the same seed on every machine, and the
builder (`tenant.py`) turns it into requests. Numbers are in the ranges Ofcom keeps for drama
(020 7946 0xxx, 01632 960xxx, 07700 900xxx): realistic, and nobody's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .names import CLIENT_COMPANIES, COMPANIES, FIRST_NAMES, LAST_NAMES

DEPARTMENTS = (("Management", 1), ("Sales", 6), ("Support", 7), ("Accounts", 3), ("Operations", 3))
"""Each department (a user group) and how many people work in it: twenty users."""
PASSWORD = "demo-password"
"""Every demo user's password: a demo is for showing, and its logins are printed at start."""
MAIN_LINE, SALES_LINE, SUPPORT_LINE, ACCOUNTS_LINE = "+442079460100", "+442079460200", "+442079460300", "+442079460400"
FAX_LINE, SMS_LINE = "+442079460500", "+447700900100"
CONTACTS = 40
IVR_KEYS = {"1": "Sales", "2": "Support", "3": "Accounts"}
"""The main line's menu: a key for each team (a queue, or the accounts ring group); 0 the operator."""


@dataclass(frozen=True)
class Person:
    first_name: str
    last_name: str
    email: str
    ext: str
    department: str
    records: bool
    """Every call of the user is recorded (`monitor` A); the others are not."""
    direct: str | None = None
    """The user's own number, when it has one."""


@dataclass(frozen=True)
class Contact:
    first_name: str
    last_name: str
    company: str
    tel: str
    mobile: str
    email: str


@dataclass(frozen=True)
class Plan:
    seed: int
    company: str
    domain: str
    people: tuple[Person, ...]
    contacts: tuple[Contact, ...]

    @property
    def root(self) -> Person:
        """The managing director: the customer's root user, whose login the demo prints."""
        return self.people[0]

    def in_department(self, name: str) -> list[int]:
        """The indexes of the people of a department, in the plan's order."""
        return [n for n, p in enumerate(self.people) if p.department == name]

    @property
    def callers(self) -> list[int]:
        """Who places outbound calls: everyone but the managing director."""
        return list(range(1, len(self.people)))


def plan_for(seed: int) -> Plan:
    """The tenant of `seed`: the same plan for the same seed."""
    rng = random.Random(f"demo-plan:{seed}")
    company, domain = rng.choice(COMPANIES)
    names = _distinct_names(rng, sum(size for _, size in DEPARTMENTS) + CONTACTS)
    people: list[Person] = []
    for department, size in DEPARTMENTS:
        for _ in range(size):
            first, last = names.pop()
            n = len(people)
            direct = f"+4420794606{n:02d}" if department in ("Management", "Accounts") else None
            email = f"{first}.{last}@{domain}".lower()
            people.append(Person(first, last, email, str(201 + n), department, rng.random() < 0.4, direct))
    contacts = []
    for n in range(CONTACTS):
        first, last = names.pop()
        client = rng.choice(CLIENT_COMPANIES)
        mail = f"{first}.{last}@{client.lower().replace(' ', '')}.example".lower()
        contacts.append(Contact(first, last, client, f"+441632960{n:03d}", f"+447700900{200 + n:03d}", mail))
    return Plan(seed, company, domain, tuple(people), tuple(contacts))


def _distinct_names(rng: random.Random, count: int) -> list[tuple[str, str]]:
    pairs = [(first, last) for first in FIRST_NAMES for last in LAST_NAMES]
    return rng.sample(pairs, count)
