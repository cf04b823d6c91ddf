"""Checking an expectation against what the server shows now: the first thing that differs, or None.

Records are read as the customer's root user reads them (`/cdrs`, `/voicemessages`, `/sms`,
`/transactions`, `/calls/{id}`, `/me`, a call's flow), mail from the operator's outbox; `where`
narrows them with the matcher of `matching`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ...domain.scenario_file import CallState, Charge, Expectation, Records, WebhookEvents, check
from .context import Run, sum_of
from .matching import difference, same


def problem(run: Run, expectation: Expectation, at: str) -> str | None:
    """What differs from `expectation` (the file's `at`, `expect[2]`), or None when it holds."""
    kind = check(expectation)
    given, at = getattr(expectation, kind), f"{at}.{kind}"
    if kind == "call":
        return _call(run, given, at)
    if kind == "webhooks":
        return _webhooks(run, given, at)
    if kind == "charge":
        return _charge(run, given, at)
    if kind == "mail":
        to = quote(str(run.resolve(given.to, f"{at}.to")), safe="@")
        return _records(run, given, run.control.request("GET", f"/_telephony/outbox?to={to}")["data"], at)
    return _records(run, given, run.records(kind), at)


def _records(run: Run, given: Records, records: list[dict], at: str) -> str | None:
    where = run.resolve(given.where, f"{at}.where")
    chosen = [r for r in records if difference(where, r) is None]
    if given.count is not None and len(chosen) != given.count:
        return f"expected {given.count} record(s){_of(where)}, got {len(chosen)}"
    if given.records is None:
        return None
    expected = run.resolve(given.records, f"{at}.records")
    if len(chosen) != len(expected):
        return f"expected {len(expected)} record(s){_of(where)}, got {len(chosen)}"
    for n, (wanted, record) in enumerate(zip(expected, chosen, strict=True), start=1):
        found = difference(wanted, record)
        if found:
            return f"record {n} (id {record.get('id')}): {found}"
    return None


def _call(run: Run, given: CallState, at: str) -> str | None:
    legs = run.legs(run.call(given.call, f"{at}.call"))
    if given.leg is not None and given.leg > len(legs):
        return f"the call has {len(legs)} leg(s), not {given.leg}"
    leg = legs[(given.leg or len(legs)) - 1]
    answer = run.send("GET", f"/calls/{leg}")
    live: dict[str, Any] = answer.body["data"] if answer.ok else {"id": leg, "state": "HANGUP"}
    if given.state is not None and live.get("state") != given.state:
        return f"call {leg}: state: expected {given.state!r}, got {live.get('state')!r}"
    found = difference(run.resolve(given.match, f"{at}.match"), live)
    return f"call {leg}: {found}" if found else None


def _webhooks(run: Run, given: WebhookEvents, at: str) -> str | None:
    legs = run.legs(run.call(given.call, f"{at}.call"))
    chosen = legs if given.leg is None else legs[given.leg - 1 : given.leg]
    names = [event["event_name"] for leg in chosen
             for event in run.get(f"/_telephony/calls/{leg}/deliveries")["data"]["events"]]  # fmt: skip
    return None if names == given.events else f"events: expected {given.events}, got {names}"


def _charge(run: Run, given: Charge, at: str) -> str | None:
    if given.call is not None and given.amount is not None:
        legs = set(run.legs(run.call(given.call, f"{at}.call")))
        charged = sum_of((r for r in run.records("cdrs") if r.get("live_id") in legs), "charge")
        if not same(given.amount, charged):
            return f"charge: expected {given.amount!r}, got {charged!r}"
    if given.balance is not None:
        balance = run.get("/me")["data"]["balance"]
        if not same(given.balance, balance):
            return f"balance: expected {given.balance!r}, got {balance!r}"
    return None


def _of(where: dict) -> str:
    return f" where {where}" if where else ""
