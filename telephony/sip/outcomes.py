"""What a softphone's INVITE hears when its call is refused or ends unanswered: a SIP status, and a
`Warning` carrying the platform's words (the API error's message, or the call's `t_cause`).

A refusal before the call is placed is the API error `POST /calls` answers, mapped: a destination
that is no number or extension 404, an emergency number 403 (a destination the platform refuses),
no permission 403, the balance 402 (Payment Required, as carriers answer it), no registered client
403, too many requests 503. A call placed that ends before it connects answers with its cause
(Q.850 to SIP as RFC 3398 maps it, as a PBX answers a phone): unallocated number 404, user busy 486,
no answer and no user responding 480, temporary failure 503, the caller's own cancel 487, a callee's
decline 603 and a routing rule's block (or hang-up) 403.
"""

from __future__ import annotations

from ..api.errors import ApiError
from ..domain import phone
from ..domain.calls.call import Call

REFUSALS = {400: 404, 401: 403, 402: 402, 403: 403, 404: 404, 412: 403, 429: 503}
"""The SIP status of an API error's status (any other is 500)."""
CAUSES = {"unallocated number": 404, "user busy": 486, "call rejected": 603, "no answer": 480,
          "no user responding": 480, "temporary failure": 503, "originator cancel": 487, "credit exhausted": 402,
          "normal clearing": 403}  # fmt: skip
"""The SIP status of a call that ended before it connected, by its cause (any other is 480)."""
RULED = 403
"""A call a routing rule ended before anything rang (no side hung it up)."""


def refusal(error: ApiError, to: str) -> tuple[int, str]:
    """The status and warning text of a call `POST /calls` refused."""
    status = 403 if error.status == 400 and phone.emergency(to) else REFUSALS.get(error.status, 500)
    return status, error.message


def ending(call: Call) -> tuple[int, str]:
    """The status and warning text of a call that ended before it connected."""
    cause = call.cause or "temporary failure"
    if cause == "call rejected" and call.ended_by is None:
        return RULED, cause
    return CAUSES.get(cause, 480), cause


def warning(text: str) -> str:
    """A `Warning` header's value (RFC 3261 20.43, code 399: miscellaneous) of printable text."""
    printable = "".join(c for c in text if " " <= c <= "~" and c != '"')[:160]
    return f'399 telephony "{printable}"'
