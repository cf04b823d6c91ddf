"""The SIP dialogue of a call, drawn from its events: what this server and the parties said, and when.

This server is a back-to-back user agent: each leg of a call ("src", "dst") is a dialog of its own
between it (`PLATFORM_ADDRESS`) and the party, with Call-ID `<call id>-<leg>@telephony`. The
legs it rings are rung in the order `call.placed` gives (`first`, then the other); an "inbound"
call's src leg is the outside caller's INVITE, answered when the call is placed, and a "transfer"
call's src leg is the party carried over from the parent call, already connected (its dialog was
set up in the parent call, so only its later messages show here).

- `call.ringing`: INVITE (with SDP), 100 Trying, 180 Ringing at the event's time; `call.answered`:
  200 OK (SDP) and ACK. A leg answered or failed without ringing first is invited just before.
- `call.held` / `call.resumed`: a re-INVITE offering `a=sendonly` / `a=sendrecv` to the remote leg
  (the one that is not the user's), 200 OK answering `recvonly` / `sendrecv`, ACK.
- `call.transferred`: REFER from the user's leg (Refer-To the new number), 202 Accepted, NOTIFY
  (sipfrag "SIP/2.0 100 Trying"), 200 OK. At the end that follows, that leg says BYE; the other leg
  goes on in the child call, so it is not torn down here. A transfer this server makes itself
  (`forwarded`: an IVR sending its caller on) sends no REFER: the `dst` leg says BYE.
- `call.ended`: see `FAILURES` and `end`. A failure is the ringing leg's final response and ACK;
  another cause is a BYE from the side that ended it (`by`), then CANCEL, 200 OK, 487, ACK on a
  leg still ringing, then a BYE from this server to every leg still connected. Events after it, or
  of another call, are ignored; other events send no message.

Each message is at its event's time (the later ones of an exchange `STEP` apart; an INVITE sent
for a ringing event `2 * STEP` before it), and never before the message before it, nor before the
call was placed: the list is in time order. A time that is not a number is the previous message's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from ..clock import LATEST
from ..domain.events.base import Event, data_of, tag_of
from .parties import endpoint, is_user, platform, user_part
from .sipdialog import SIPFRAG, Dialog, Transaction
from .sipmessage import PLATFORM_ADDRESS, SipMessage

STEP = 0.005
"""Seconds between the messages of one exchange: a network turn."""
FAILURES = {
    "user busy": (486, "Busy Here"),
    "call rejected": (603, "Decline"),
    "unallocated number": (404, "Not Found"),
    "temporary failure": (503, "Service Unavailable"),
    "no user responding": (480, "Temporarily Unavailable"),
}
"""Causes that are the ringing leg's final response (and this server's ACK)."""
CANCELLING = frozenset({"no answer", "originator cancel"})
"""Causes that cancel the ringing leg (any other cause cancels a leg still ringing too)."""
LEGS = ("src", "dst")
IDLE, CALLING, RINGING, UP, GONE = "idle", "calling", "ringing", "up", "gone"
_ANSWER = {"sendonly": "recvonly", "sendrecv": "sendrecv"}


def _other(leg: str) -> str:
    return "dst" if leg == "src" else "src"


def _leg(value: object) -> str | None:
    return value if isinstance(value, str) and value in LEGS else None


def _field(party: object, key: str) -> object:
    return party.get(key) if isinstance(party, Mapping) else None


@dataclass
class _Leg:
    dialog: Dialog
    phase: str = IDLE
    invite: Transaction | None = None


class _Call:
    """A call's legs as its events move them, and the messages drawn so far."""

    def __init__(self, placed: Mapping) -> None:
        self.id = placed.get("id")
        self.last = _seconds(placed.get("at"), 0.0)
        self.messages: list[SipMessage] = []
        src, dst = placed.get("src"), placed.get("dst")
        kind, first = placed.get("kind"), placed.get("first")
        first = first if first in LEGS else "src"
        carried = kind in ("inbound", "transfer")
        self.order = ["dst"] if carried else [first, _other(first)]
        self.user = "dst" if is_user(dst) and not is_user(src) else "src"
        self.referrer: str | None = None
        us = {"src": platform(_field(dst, "number"), _field(dst, "name")),
              "dst": platform(placed.get("clid") or _field(src, "number"), _field(src, "name"))}  # fmt: skip
        self.legs = {
            leg: _Leg(Dialog(f"{user_part(str(self.id), 'call')}-{leg}@telephony", leg, us[leg], endpoint(party),
                             established=kind == "transfer" and leg == "src"))
            for leg, party in (("src", src), ("dst", dst))
        }  # fmt: skip
        if kind == "transfer":
            self.legs["src"].phase = UP
        elif kind == "inbound":
            self._called_in("src", self.last)

    def _at(self, seconds: float) -> datetime:
        self.last = max(seconds, self.last)
        return datetime.fromtimestamp(self.last, UTC)

    def _request(self, leg: str, seconds: float, method: str, **kwargs) -> Transaction:
        message, transaction = self.legs[leg].dialog.request(self._at(seconds), method, **kwargs)
        self.messages.append(message)
        return transaction

    def _respond(self, leg: str, seconds: float, request: Transaction, code: int, reason: str, **kwargs) -> None:
        self.messages.append(self.legs[leg].dialog.response(self._at(seconds), request, code, reason, **kwargs))

    def _called_in(self, leg: str, at: float) -> None:
        """The party's INVITE, answered by this server."""
        dialog = self.legs[leg].dialog
        invite = self._request(leg, at, "INVITE", from_us=False, body=dialog.sdp(False))
        self._respond(leg, at + STEP, invite, 100, "Trying")
        self._respond(leg, at + 2 * STEP, invite, 200, "OK", body=dialog.sdp(True))
        self._request(leg, at + 3 * STEP, "ACK", from_us=False, of=invite, answered=True)
        self.legs[leg].phase = UP

    def _invite(self, leg: str, at: float) -> None:
        part = self.legs[leg]
        part.invite = self._request(leg, at - 2 * STEP, "INVITE", body=part.dialog.sdp(True))
        self._respond(leg, at - STEP, part.invite, 100, "Trying")
        part.phase = CALLING

    def _invited(self, leg: str | None, at: float) -> _Leg | None:
        """The leg, invited if it was not yet; None when it is not one the call rings now."""
        if leg is None or leg not in self.order or self.legs[leg].phase not in (IDLE, CALLING, RINGING):
            return None
        if self.legs[leg].phase == IDLE:
            self._invite(leg, at)
        return self.legs[leg]

    def ringing(self, leg: str | None, at: float) -> None:
        part = self._invited(leg, at)
        if part is not None and part.invite is not None and part.phase == CALLING:
            self._respond(part.dialog.leg, at, part.invite, 180, "Ringing")
            part.phase = RINGING

    def answered(self, leg: str | None, at: float) -> None:
        part = self._invited(leg, at)
        if part is None or part.invite is None:
            return
        name = part.dialog.leg
        self._respond(name, at, part.invite, 200, "OK", body=part.dialog.sdp(False))
        self._request(name, at + STEP, "ACK", of=part.invite, answered=True)
        part.phase = UP

    def hold(self, at: float, direction: str) -> None:
        leg = _other(self.user)
        dialog = self.legs[leg].dialog
        if self.legs[leg].phase != UP:
            return
        invite = self._request(leg, at, "INVITE", body=dialog.sdp(True, direction))
        self._respond(leg, at + STEP, invite, 200, "OK", body=dialog.sdp(False, _ANSWER[direction]))
        self._request(leg, at + 2 * STEP, "ACK", of=invite, answered=True)

    def transferred(self, at: float, to: object, forwarded: bool) -> None:
        if forwarded:  # this server moves the caller on itself: no REFER, its own leg goes
            self.referrer = "dst"
            return
        up = [leg for leg in (self.user, _other(self.user)) if self.legs[leg].phase == UP]
        if not up:
            return
        leg, dialog = up[0], self.legs[up[0]].dialog
        refer_to = f"<sip:{user_part(to if isinstance(to, str) else '', 'unknown')}@{PLATFORM_ADDRESS}>"
        refer = self._request(leg, at, "REFER", from_us=False,
                              headers=(("Refer-To", refer_to), ("Referred-By", f"<{dialog.them.uri}>")))  # fmt: skip
        self._respond(leg, at + STEP, refer, 202, "Accepted")
        notify = self._request(leg, at + 2 * STEP, "NOTIFY", body="SIP/2.0 100 Trying\r\n", content_type=SIPFRAG,
                               headers=(("Event", "refer"), ("Subscription-State", "active;expires=60")))  # fmt: skip
        self._respond(leg, at + 3 * STEP, notify, 200, "OK")
        self.referrer = leg

    def end(self, at: float, cause: object, by: str | None) -> None:
        failure = FAILURES.get(cause) if isinstance(cause, str) else None
        ringing = [leg for leg in self.order if self.legs[leg].phase in (CALLING, RINGING)]
        if not ringing and (failure or cause in CANCELLING):
            ringing = [leg for leg in self.order if self.legs[leg].phase == IDLE][:1]
            for leg in ringing:
                self._invite(leg, at)
        leaving = by or (self.referrer if cause == "transferred" else None)
        if failure is None and leaving is not None and self.legs[leaving].phase == UP:
            self._bye(leaving, at, from_us=False)
            at = self.last + STEP
        for index, leg in enumerate(ringing):
            if index == 0 and failure is not None:
                self._fail(leg, at, *failure)
            else:
                self._cancel(leg, at)
            at = self.last + STEP
        for leg in LEGS if cause != "transferred" or self.referrer is None else ():
            if self.legs[leg].phase == UP:
                self._bye(leg, at, from_us=True)
                at = self.last + STEP

    def _bye(self, leg: str, at: float, *, from_us: bool) -> None:
        bye = self._request(leg, at, "BYE", from_us=from_us)
        self._respond(leg, at + STEP, bye, 200, "OK")
        self.legs[leg].phase = GONE

    def _fail(self, leg: str, at: float, code: int, reason: str) -> None:
        invite = self.legs[leg].invite
        assert invite is not None
        self._respond(leg, at, invite, code, reason)
        self._request(leg, at + STEP, "ACK", of=invite)
        self.legs[leg].phase = GONE

    def _cancel(self, leg: str, at: float) -> None:
        invite = self.legs[leg].invite
        assert invite is not None
        cancel = self._request(leg, at, "CANCEL", of=invite)
        self._respond(leg, at + STEP, cancel, 200, "OK")
        self._respond(leg, at + 2 * STEP, invite, 487, "Request Terminated")
        self._request(leg, at + 3 * STEP, "ACK", of=invite)
        self.legs[leg].phase = GONE


def _seconds(value: object, default: float) -> float:
    """An event's time as epoch seconds within what a datetime holds."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return default
    return min(max(float(value), 0.0), LATEST - 1)


def stored(events: Iterable[Event]) -> list[tuple[str, Mapping]]:
    """A call's typed events as the dialogue reads them: each one's stored type and data."""
    return [(tag_of(type(event)), data_of(event)) for event in events]


def dialogue(events: Sequence[tuple[str, Mapping]]) -> list[SipMessage]:
    """The SIP messages of the call whose `call.placed` comes first in `events`, in time order."""
    call: _Call | None = None
    for kind, data in events:
        if call is None:
            call = _Call(data) if kind == "call.placed" else None
            continue
        if data.get("id") != call.id:
            continue
        at = _seconds(data.get("at"), call.last)
        if kind == "call.ringing":
            call.ringing(_leg(data.get("leg")), at)
        elif kind == "call.answered":
            call.answered(_leg(data.get("leg")), at)
        elif kind in ("call.held", "call.resumed"):
            call.hold(at, "sendonly" if kind == "call.held" else "sendrecv")
        elif kind == "call.transferred":
            call.transferred(at, data.get("to"), data.get("forwarded") is True)
        elif kind == "call.ended":
            call.end(at, data.get("cause"), _leg(data.get("by")))
            break
    return call.messages if call else []


def leg_dialogue(events: Sequence[tuple[str, Mapping]], leg: str) -> list[SipMessage]:
    """The messages of one leg ("src" or "dst"): what a media session's capture shows."""
    return [message for message in dialogue(events) if message.leg == leg]
