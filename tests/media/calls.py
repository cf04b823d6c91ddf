"""Call event streams as the call engine writes them, for the dialogue and capture tests."""

from __future__ import annotations

from typing import Any

T = 1_782_907_200.0
"""2026-07-01 12:00:00 UTC."""
CALL = 1007
USER = {"number": "201", "id": "1000002", "name": "Ann Smith", "ua": "Zoiper rv2.10",
        "contact": "sip:1000002@198.51.100.7:5060", "codec": "PCMA", "user_id": 5}  # fmt: skip
OUTSIDE = {"number": "+441234567890", "id": None, "name": None, "ua": None, "contact": None, "codec": None,
           "user_id": None}  # fmt: skip
OTHER = {"number": "+447700900123", "id": None, "name": "Bob", "ua": None, "contact": None, "codec": "opus",
         "user_id": None}  # fmt: skip

Event = tuple[str, dict[str, Any]]


def event(type_: str, at: float, call: int = CALL, **data: Any) -> Event:
    return type_, {"id": call, "at": at, **data}


def placed(kind: str, first: str, src: dict, dst: dict, call: int = CALL, **extra: Any) -> Event:
    return event("call.placed", T, call, customer_id=100001, user_id=5, kind=kind, first=first, src=src, dst=dst,
                 clid=None, context="out", destination=dst["number"], parent_id=None, plan=None, **extra)  # fmt: skip


def connected(first: str = "src", second: str = "dst") -> list[Event]:
    """Both legs rung and answered, in order, from T."""
    return [event("call.ringing", T + 0.5, leg=first), event("call.answered", T + 3, leg=first),
            event("call.ringing", T + 3.5, leg=second), event("call.answered", T + 10, leg=second)]  # fmt: skip


def answered_click() -> list[Event]:
    """A click-to-call answered by both, held and resumed, hung up by the destination."""
    return [placed("click", "src", USER, OUTSIDE), event("call.accepted", T), *connected(),
            event("call.recording_started", T + 10), event("call.held", T + 20), event("call.resumed", T + 30),
            event("call.ended", T + 40, cause="normal clearing", disposition="ANSWERED", by="dst")]  # fmt: skip


def failed_click(cause: str, by: str | None = "dst") -> list[Event]:
    """A click-to-call whose user answered and whose destination rang, then ended for `cause`."""
    return [placed("click", "src", USER, OUTSIDE), event("call.accepted", T), *connected()[:3],
            event("call.ended", T + 20, cause=cause, disposition="NO ANSWER", by=by)]  # fmt: skip


def inbound_call() -> list[Event]:
    """An outside caller put through to a user, who answers; the caller hangs up."""
    return [placed("inbound", "dst", OUTSIDE, USER), event("call.ringing", T + 1, leg="dst"),
            event("call.answered", T + 5, leg="dst"),
            event("call.ended", T + 30, cause="normal clearing", disposition="ANSWERED", by="src")]  # fmt: skip
