"""The app's own projections: a rebuild from the log reproduces, byte for byte, what live appends made."""

from __future__ import annotations

import random

from telephony import wiring
from telephony.accounts.sessions import SessionIndex
from telephony.audit import verify_projections
from telephony.clock import Clock
from telephony.domain.events import events_of
from telephony.domain.events.accounts import (
    USER,
    CustomerDeleted,
    DeviceAdded,
    PasswordChanged,
    TokenIssued,
    TokenRevoked,
    TokenTouched,
    UserCreated,
    UserDeleted,
    UserUpdated,
)
from telephony.eventlog import EventLog, NewEvent
from telephony.eventlog import store as sqlite_store
from telephony.projections.memory import MemoryProjections

TEXTS = [None, "", "naïve café ✓", 'quote " and \\ slash']
FIELDS = {
    "contact": {"first_name": TEXTS, "global": [None, True, False], "outcome_id": [None, 0, -7, 2**40],
                "labels": [None, [], [1, "two", None], [{"nested": {"deep": [1.5, "x"]}}], [0.1, 1e-05, 3.0, True]]},
    "cdr": {"src": TEXTS, "rate": [None, 0.1, 1e-05, 3.0], "billsec": [None, 0, 86_400]},
    "queue": {"name": TEXTS, "users": [None, [], [1, {"id": 2, "status": False}]], "ddis": [None, ["+442000000001"]]},
}  # fmt: skip
"""Fields of each kind of each JSON shape its record holds, and values of that shape."""
KINDS = ("contact", "cdr", "queue")


def generated(seed: int, count: int, first: int = 1) -> list[list[NewEvent]]:
    """Creations, updates with every JSON shape a record holds, deletions, clears, and token lives, in random order."""
    rng = random.Random(seed)
    alive: dict[str, list[int]] = {kind: [] for kind in KINDS}
    tokens: list[str] = []
    users: list[int] = []
    batches: list[list[NewEvent]] = []
    for n in range(first, first + count):
        if rng.random() < 0.2:
            batches.append([user_event(rng, n, users)])
            continue
        kind = rng.choice(KINDS)
        roll = rng.random()
        if roll < 0.35 or not alive[kind]:
            alive[kind].append(n)
            body = {"id": n, **{name: rng.choice(values) for name, values in FIELDS[kind].items()}}
            made = events_of(kind).made(n, rng.choice([100001, 100002]), body)
            event = NewEvent(stream=f"{kind}-{n}", event=made)
        elif roll < 0.75:
            target = rng.choice(alive[kind])
            names = rng.sample(list(FIELDS[kind]), rng.randint(1, 3))
            changes = {name: rng.choice(FIELDS[kind][name]) for name in names}
            event = NewEvent(stream=f"{kind}-{target}", event=events_of(kind).updated(id=target, changes=changes))
        elif roll < 0.85:
            target = alive[kind].pop(rng.randrange(len(alive[kind])))
            event = NewEvent(stream=f"{kind}-{target}", event=events_of(kind).deleted(id=target))
        elif roll < 0.87:
            alive[kind].clear()
            event = NewEvent(stream=f"{kind}s", event=events_of(kind).cleared(customer_id=100001))
        elif roll < 0.95 or not tokens:
            token = f"{n:016x}"
            tokens.append(token)
            issued = {"token_id": token, "digest": f"{n:064x}", "sealed": None, "user_id": 1000001,
                      "customer_id": 100001, "kind": "apitoken", "name": f"t{n}", "expiry": 0, "inactivity": 0,
                      "api_version": "v1.2", "host": None, "user_agent": None, "created_at": "2026-01-01 00:00:00",
                      "issued_epoch": float(n)}  # fmt: skip
            event = NewEvent(stream=f"token-{token}", event=TokenIssued(**issued))
        else:
            token = rng.choice(tokens)
            event = rng.choice([
                NewEvent(stream=f"token-{token}",
                         event=TokenTouched(token_id=token, at="2026-01-02 00:00:00", epoch=float(n))),
                NewEvent(stream=f"token-{token}", event=TokenRevoked(token_id=token, reason="deleted")),
            ])  # fmt: skip
        batches.append([event])
    return batches


def user_event(rng: random.Random, n: int, users: list[int]) -> NewEvent:
    """A user's life as credentials see it: created, 2FA switched, password changed, devices, deleted."""
    roll = rng.random()
    if roll < 0.3 or not users:
        users.append(n)
        customer_id = rng.choice([100001, 100002])
        body = {"id": n, "email": f"User{n}@Example.com", "two_factor_auth": rng.choice(["D", "E"]),
                "customer_id_id": customer_id, "roles": [rng.choice(["ROLE_AGENT", "ROLE_ADMIN"])]}  # fmt: skip
        data = {"id": n, "customer_id": customer_id, "body": USER.body(body),
                "password_hash": f"scrypt${n}", "sip_password_sealed": rng.choice([None, f"sealed{n}"])}  # fmt: skip
        return NewEvent(stream=f"user-{n}", event=UserCreated(**data))
    target = rng.choice(users)
    if roll < 0.55:
        changes = rng.choice([{"two_factor_auth": rng.choice(["D", "E"])}, {"first_name": f"n{n}"},
                              {"roles": ["ROLE_READ_ONLY"], "active": rng.random() < 0.5}])  # fmt: skip
        return NewEvent(stream=f"user-{target}", event=UserUpdated(id=target, changes=changes))
    if roll < 0.7:
        return NewEvent(stream=f"user-{target}", event=PasswordChanged(id=target, password_hash=f"scrypt${n}"))
    if roll < 0.85:
        return NewEvent(stream=f"user-{target}", event=DeviceAdded(id=target, device_digest=f"{n:064x}"))
    if roll < 0.99:
        users.remove(target)
        return NewEvent(stream=f"user-{target}", event=UserDeleted(id=target))
    users.clear()
    return NewEvent(stream="customer-100002", event=CustomerDeleted(id=100002))


async def test_a_rebuild_reproduces_the_live_projections_exactly(tmp_path):
    log = await EventLog.open(tmp_path, wiring.projection_set(), Clock(), progress=False)
    for seed in range(3):
        for batch in generated(seed, 3000, first=1 + seed * 3000):
            await log.append(batch)
    await log.close()
    conn = sqlite_store.connect(tmp_path / "events.db")
    assert verify_projections(conn, wiring.projection_set()) is None


async def test_the_apps_in_memory_projections_equal_a_fresh_fold_live_and_after_a_restart(tmp_path, settings):
    async def opened() -> tuple[EventLog, MemoryProjections]:
        log = await EventLog.open(tmp_path, wiring.projection_set(), Clock.virtual(), progress=False)
        memory = MemoryProjections(wiring.memory_projections(settings))
        await memory.attach(log)
        log.follow_commits("memory", memory.follow)
        return log, memory

    log, live = await opened()
    rng = random.Random(7)
    for batch in generated(7, 3000):
        if rng.random() < 0.05:  # bulk loads keep no events: the followers read them back
            await log.transact(lambda _conn, batch=batch: batch, keep=False)
        else:
            await log.append(batch)
    assert live[SessionIndex].by_id and live[SessionIndex].accounts
    assert await live.verify(log) is None
    await log.close()
    log, again = await opened()
    assert [p.state() for p in again.all] == [p.state() for p in live.all]
    await log.close()
