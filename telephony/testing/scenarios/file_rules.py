"""What a scenario file's types cannot say, checked on the file as read (so a file with type problems
is checked too, and every problem is told at once): each step takes one action and each expectation
makes one check, each name is made once, and each name used is made before it is used.

A name is made by `setup` (a user, a contact, ...: the key of its kind; `customer` is the run's own)
or by a step's `name` (a call, an SMS, a fault rule, a record). It is used as `${name}` in any text
(or key) of a body, or by a field that names one thing (`as` a user, `hangup` a call, ...: `NAMING`).
Things are made in the run's order: setup in its order, then steps and expectations by `at`, the
steps of a time before its expectations, each kind in the file's order; a use must come after.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from ...domain.errors import Problems
from ...domain.scenario_file import ACTIONS, CHECKS, REF, SETUP_ORDER, bare

USED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
KINDS = {"users": "user", "contacts": "contact", "queues": "queue", "ringgroups": "ring group", "ivrs": "IVR",
         "numbers": "number", "routingrules": "routing rule", "webhooks": "webhook"}  # fmt: skip
MADE_BY = {"inbound_call": "call", "call": "call", "inbound_sms": "SMS", "fault": "fault rule"}
"""What a named step makes, by its action (any other: the record its answer names)."""
NAMING = {
    "steps": {"as": "user", "answer": "call", "hangup": "call", "dtmf.call": "call", "transfer.call": "call",
              "stop_fault": "fault rule", "agent.queue": "queue", "agent.user": "user"},
    "expect": {"call.call": "call", "webhooks.call": "call", "charge.call": "call"},
}  # fmt: skip
"""The fields that name one thing, by where they are, and the kind of thing they name."""
Order = tuple[float, ...]
"""When a thing is made or a name used, in the run's order (compared as tuples)."""
Use = tuple[str, str, str | None, Order]
"""A name used: the name, where (`steps[2].hangup`), the kind of thing it must name (None: any), when."""


@dataclass(frozen=True)
class Made:
    """A thing the file makes under a name."""

    kind: str
    at: str
    """Where the file makes it (`setup.users.ann`, `steps[2].name`)."""
    order: Order
    when: str = ""


def problems(raw: Any) -> Problems:
    """Every problem of these rules in the file `raw` (its YAML as JSON values), each with its field."""
    if not isinstance(raw, dict):
        return []
    found: Problems = []
    steps, expect = _items(raw, "steps"), _items(raw, "expect")
    for kind, items, choices in (("steps", steps, ACTIONS), ("expect", expect, CHECKS)):
        for n, item in enumerate(items):
            given = [name for name in choices if item.get(name) is not None]
            if len(given) != 1:
                found.append((f"{kind}[{n}]", f"Give exactly one of {', '.join(choices)} (got {len(given)})"))
    made: dict[str, Made] = {"customer": Made("customer", "the run", (-1.0,))}
    uses: list[Use] = []
    setup = _object(raw.get("setup"))
    for k, kind in enumerate(SETUP_ORDER):
        for n, (name, body) in enumerate(_object(setup.get(kind)).items()):
            order: Order = (0.0, float(k), float(n))
            found += _make(made, str(name), Made(KINDS[kind], f"setup.{kind}.{name}", order))
            uses += _used(body, f"setup.{kind}.{name}", order)
    for kind in ("tariffs", "credit"):
        uses += _used(setup.get(kind), f"setup.{kind}", (0.0, float(len(SETUP_ORDER))))
    for n, step in sorted(enumerate(steps), key=lambda entry: _at(entry[1], 0.0)):
        order = (1.0, _at(step, 0.0), 0.0, float(n))
        uses += _fields(step, f"steps[{n}]", NAMING["steps"], order)
        name = step.get("name")
        if isinstance(name, str):
            what = next((MADE_BY.get(a, "record") for a in ACTIONS if step.get(a) is not None), "record")
            found += _make(made, name, Made(what, f"steps[{n}].name", order, f" at {_at(step, 0.0):g} s"))
    for n, expectation in enumerate(expect):
        uses += _fields(expectation, f"expect[{n}]", NAMING["expect"], (1.0, _at(expectation, math.inf), 1.0, float(n)))
    return found + [problem for use in uses if (problem := _unmade(made, *use)) is not None]


def _object(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _items(raw: dict, key: str) -> list[dict]:
    items = raw.get(key)
    return [item if isinstance(item, dict) else {} for item in items] if isinstance(items, list) else []


def _at(item: dict, default: float) -> float:
    at = item.get("at")
    return float(at) if isinstance(at, int | float) and not isinstance(at, bool) else default


def _make(made: dict[str, Made], name: str, thing: Made) -> Problems:
    if name in made:
        return [(thing.at, f"The name {name} is given twice: each name names one thing")]
    made[name] = thing
    return []


def _fields(item: dict, at: str, naming: dict[str, str], order: Order) -> list[Use]:
    """The uses of an item (a step, an expectation): its fields that name one thing, `${name}` elsewhere."""
    uses: list[Use] = []
    for key, value in item.items():
        if key == "name":
            continue
        inner = _object(value)
        named = {field: naming[f"{key}.{field}"] for field in inner if f"{key}.{field}" in naming}
        if key in naming:
            uses += _named(value, f"{at}.{key}", naming[key], order)
        elif named:
            for field, kind in named.items():
                uses += _named(inner[field], f"{at}.{key}.{field}", kind, order)
            uses += _used({k: v for k, v in inner.items() if k not in named}, f"{at}.{key}", order)
        else:
            uses += _used(value, f"{at}.{key}", order)
    return uses


def _named(value: Any, at: str, kind: str, order: Order) -> list[Use]:
    return [(bare(value), at, kind, order)] if isinstance(value, str) and re.fullmatch(REF, value) else []


def _used(value: Any, at: str, order: Order) -> list[Use]:
    """Each `${name}` in a value (its texts, and its objects' keys), with where it is."""
    if isinstance(value, str):
        return [(name, at, None, order) for name in USED.findall(value)]
    if isinstance(value, dict):
        return [use for k, v in value.items() for use in (*_used(str(k), at, order), *_used(v, f"{at}.{k}", order))]
    if isinstance(value, list):
        return [use for n, item in enumerate(value) for use in _used(item, f"{at}[{n}]", order)]
    return []


def _unmade(made: dict[str, Made], name: str, at: str, kind: str | None, order: Order) -> tuple[str, str] | None:
    """The problem of one use of `name` at `at` (a `kind` of thing, or any), or None when it is made before."""
    thing = made.get(name)
    if thing is None:
        same = sorted(n for n, m in made.items() if kind in (None, m.kind) and n != "customer")
        known = f" (the file's {kind + 's' if kind else 'names'}: {', '.join(same)})" if same else ""
        return at, f"{'no ' + kind if kind else 'nothing'} is named {name}{known}"
    if kind is not None and thing.kind != kind:
        return at, f"{name} is a {thing.kind} ({thing.at}), not a {kind}"
    if thing.order >= order:
        return at, f"{name} is made later ({thing.at}{thing.when}): nothing is named {name} yet here"
    return None
