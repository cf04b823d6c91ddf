"""The scenario file, declared once: these Structs read it, and its JSON Schema is drawn from them.

A scenario makes a customer of its own, sets it up with the API's own bodies (`setup`), takes its
`steps` at clock offsets from its start, and checks its `expect`ations, each when the clock reaches
its `at` (or at the end, `until`). A string `${name}` in a body stands for what `setup` or an earlier
step made under that name: a record's id, a number's E.164, a webhook's name, a call's first id; a
field that names one thing (`as` a user, `call`, `hangup` and `answer` a call, ...) takes the name,
bare or as `${name}`, and a call acts on the leg it is in now. `bodies.read` reads a file whole,
naming every problem; the runner's `file_rules` (`testing.scenarios`) adds the rules the types
cannot say.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from ..config import Simulator

NAME = r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"
REF = r"^(?:[A-Za-z_][A-Za-z0-9_.-]{0,63}|\$\{[A-Za-z_][A-Za-z0-9_.-]{0,63}\})$"
WHEN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$"
ACTIONS = ("inbound_call", "inbound_sms", "call", "dtmf", "answer", "hangup", "transfer", "agent", "fault",
           "stop_fault", "request")  # fmt: skip
SETUP_ORDER = ("users", "contacts", "queues", "ringgroups", "ivrs", "numbers", "routingrules", "webhooks")
"""The kinds `setup` makes under a name, in the order it makes them."""
CHECKS = ("call", "cdrs", "voicemessages", "sms", "transactions", "mail", "webhooks", "charge")


def about(text: str, **bounds: Any) -> msgspec.Meta:
    """A field's description in the JSON Schema (and its bounds)."""
    return msgspec.Meta(description=text, **bounds)


def empty() -> Any:
    return msgspec.field(default_factory=dict)


Name = Annotated[str, about("a name: a letter, then letters, digits, . _ -", pattern=NAME)]
CallName = Annotated[str, about("a call's name, bare or as ${name}", pattern=REF)]
UserName = Annotated[str, about("a user's name, bare or as ${name}", pattern=REF)]
"""Fields naming one thing the file makes (a call, a user, ...): `bare` gives the name."""
Offset = Annotated[float, about("seconds from the scenario's start", ge=0, le=366 * 86400)]
Body = dict[str, Any]
"""A body of the API, `${name}` standing for what is named."""
Matched = Annotated[dict[str, Any], about("fields a record must hold: a value, or {contains|min|max|len|in}")]
Named = dict[Name, Body]


class Part(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Every part of a file: a field it does not declare is a problem, never ignored."""


class Setup(Part, kw_only=True):
    """What the scenario's customer has before the first step, made in this order, each kind by the
    name it is made under. Each user gets an API key, with which the steps act as it."""

    users: Annotated[
        Named, about("POST /_telephony/customers/{id}/users (email and password drawn when not given)")
    ] = empty()
    contacts: Annotated[Named, about("POST /contacts")] = empty()
    queues: Annotated[Named, about("POST /queues")] = empty()
    ringgroups: Annotated[Named, about("POST /ringgroups")] = empty()
    ivrs: Annotated[Named, about("POST /ivrs")] = empty()
    numbers: Annotated[Named, about("POST /_telephony/customers/{id}/ddis; ${name} is the number")] = empty()
    routingrules: Annotated[Named, about("POST /routingrules")] = empty()
    webhooks: Annotated[Named, about("POST /_telephony/webhooks; ${name} is its name")] = empty()
    tariffs: Annotated[list[Body], about("PUT /_telephony/customers/{id}/tariffs")] = msgspec.field(
        default_factory=list
    )
    credit: Annotated[float, about("POST /_telephony/customers/{id}/credit: a balance to start with", gt=0)] | None = (
        None
    )


class Dtmf(Part, kw_only=True):
    call: CallName
    digits: Annotated[str, about("a key, or an extension", pattern=r"^([0-9*#]|[0-9]{2,6})$")]


class Transfer(Part, kw_only=True):
    call: CallName
    to: Annotated[str, about("the number or extension (PATCH /calls/{id} dst)")]


class Agent(Part, kw_only=True):
    """A queue's member logs in or out (`PATCH /queues/{id}` `users`)."""

    queue: Annotated[str, about("a queue's name, bare or as ${name}", pattern=REF)]
    user: UserName
    logged_in: bool


class Request(Part, kw_only=True):
    """Any request: of the API (`path` after the version prefix) or the operator's (`/_telephony/...`)."""

    method: Literal["GET", "POST", "PATCH", "PUT", "DELETE"]
    path: Annotated[str, about("a path, from /", pattern=r"^/")]
    body: Any = None


class Step(Part, kw_only=True):
    """One action at `at`, as the user `as` (a setup user's name; the customer's root user by default).
    `name` names what it made (a call, an SMS, a fault rule); `status` is the HTTP status it must get
    (any 2xx by default): a step answered otherwise fails the scenario."""

    at: Offset = 0
    name: Name | None = None
    as_: UserName | None = msgspec.field(default=None, name="as")
    status: Annotated[int, about("the HTTP status the step must get", ge=100, le=599)] | None = None
    inbound_call: (
        Annotated[Body, about("POST /_telephony/simulate/inbound-call {from, to, digits, answer, ...}")] | None
    ) = None
    inbound_sms: Annotated[Body, about("POST /_telephony/simulate/inbound-sms {from, to, text}")] | None = None
    call: Annotated[Body, about("POST /calls (from: the acting user by default)")] | None = None
    dtmf: Dtmf | None = None
    answer: Annotated[CallName, about("a call's name: its ringing leg answers (PATCH /calls/{id})")] | None = None
    hangup: Annotated[CallName, about("a call's name: it hangs up (DELETE /calls/{id})")] | None = None
    transfer: Transfer | None = None
    agent: Agent | None = None
    fault: Annotated[Body, about("POST /_telephony/faults: a fault rule starts")] | None = None
    stop_fault: (
        Annotated[str, about("a fault rule's name: it stops (DELETE /_telephony/faults/{id})", pattern=REF)] | None
    ) = None
    request: Request | None = None


class Records(Part, kw_only=True):
    """The records that hold every field of `where`: `count` of them, and, when `records` is given, one
    for one (in id order) holding its fields."""

    where: Matched = empty()
    count: Annotated[int, about("how many", ge=0)] | None = None
    records: list[Matched] | None = None


class CallState(Part, kw_only=True):
    """The live call a step named, in the leg it is in now (or its `leg`, from 1): its `state` (HANGUP
    when no leg lives) and the fields of `match`."""

    call: CallName
    leg: Annotated[int, about("the call's leg, from 1", ge=1)] | None = None
    state: str | None = None
    match: Matched = empty()


class WebhookEvents(Part, kw_only=True):
    """The webhook events a call made, in order (`GET /_telephony/calls/{id}/deliveries`), over its legs
    (or one `leg`, from 1)."""

    call: CallName
    leg: Annotated[int, about("the call's leg, from 1", ge=1)] | None = None
    events: list[str]


class Charge(Part, kw_only=True):
    """What a call cost (the `charge` of its legs' CDRs, added up), and the customer's balance (`/me`)."""

    call: CallName | None = None
    amount: float | None = None
    balance: float | None = None


class Mail(Records, kw_only=True):
    """Mail in the outbox to `to`."""

    to: str


class Expectation(Part, kw_only=True):
    """One check, when the clock reaches `at` (at the end by default)."""

    at: Offset | None = None
    name: str | None = None
    call: CallState | None = None
    cdrs: Records | None = None
    voicemessages: Records | None = None
    sms: Records | None = None
    transactions: Records | None = None
    mail: Mail | None = None
    webhooks: WebhookEvents | None = None
    charge: Charge | None = None


class Scenario(Part, kw_only=True):
    """A scenario: its customer's setup, its steps and what to expect. In-process runs start the clock
    at `start` and use `seed` and `simulator` (the `[simulator]` settings); against a running server,
    its own apply (and a file with `simulator` is refused there). The run ends at `until` (an hour
    after the last step or expectation by default)."""

    name: str
    description: str = ""
    seed: int = 1
    start: Annotated[str, about("a UTC time, YYYY-MM-DD HH:MM:SS", pattern=WHEN)] = "2026-01-05 09:00:00"
    until: Offset | None = None
    simulator: Simulator | None = None
    customer: Annotated[str, about("the name of the customer the run makes")] = "Scenario customer"
    setup: Setup = msgspec.field(default_factory=Setup)
    steps: list[Step] = msgspec.field(default_factory=list)
    expect: list[Expectation] = msgspec.field(default_factory=list)


def action(step: Step) -> str:
    """The one action a step takes."""
    return next(name for name in ACTIONS if getattr(step, name) is not None)


def check(expectation: Expectation) -> str:
    """The one check an expectation makes."""
    return next(name for name in CHECKS if getattr(expectation, name) is not None)


def bare(name: str) -> str:
    """A name as a field names it, bare or as `${name}`: the name itself."""
    return name[2:-1] if name.startswith("${") and name.endswith("}") else name
