"""A fault rule's declaration: what `POST /_telephony/faults` takes and `[[faults.rules]]` in
`config.toml` holds, with every bound a field has and the rules between fields (`problems`). What a
rule does is in `domain.faults`; where it acts, in `faults`."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

LONGEST_FAULT_MS = 600_000
LONGEST_FAULT_LIFE = 10 * 365 * 86400.0
API_EFFECTS = ("status", "latency_ms", "drop", "slow_body")
WEBHOOK_EFFECTS = ("drop", "delay_ms", "duplicate")
Millis = Annotated[int, msgspec.Meta(ge=1, le=LONGEST_FAULT_MS, description="milliseconds, real time")]
PathPattern = Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=r"^/[^\s?#]*$",
                                          description="an API path; * within a segment, ** across")]  # fmt: skip
NamePattern = Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9 ._*-]+$",
                                          description="a webhook's name; * matches any characters")]  # fmt: skip


class FaultRule(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """A fault rule, as `POST /_telephony/faults` takes it and `[[faults.rules]]` holds it: for API
    requests (`path`, `method`; one of `status`, `latency_ms`, `drop`, `slow_body`) or for webhook
    deliveries (`webhook`; one of `drop`, `delay_ms`, `duplicate`), firing `count` times at most, each
    match with `probability`, until `expires_in` seconds of clock time have passed. Types and bounds are
    declared here; `problems` names what breaks the rules between fields."""

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] | None = None
    """The HTTP method of the requests it matches (any when left out)."""
    path: PathPattern | None = None
    """The API paths it matches (`*` within a segment, `**` across)."""
    webhook: NamePattern | None = None
    """The webhooks whose deliveries it matches, by name (`*` matches any characters)."""
    status: Literal[500, 502, 503, 429] | None = None
    """Answer the request with this status instead."""
    retry_after: Annotated[int, msgspec.Meta(ge=0, le=86_400)] | None = None
    """The `Retry-After` seconds of that answer."""
    latency_ms: Millis | None = None
    """Hold the request this long before it is handled."""
    drop: bool = False
    """Drop the connection (a request), or the delivery (it is never sent)."""
    slow_body: Millis | None = None
    """Send the answer's body slowly, over this long."""
    delay_ms: Millis | None = None
    """Hold the delivery this long before it is sent."""
    duplicate: bool = False
    """Send the delivery twice."""
    count: Annotated[int, msgspec.Meta(ge=1, le=1_000_000_000)] | None = None
    """Fire at most this many times."""
    probability: Annotated[float, msgspec.Meta(gt=0, le=1)] | None = None
    """Fire on a match with this probability (from the seeded randomness)."""
    expires_in: Annotated[float, msgspec.Meta(gt=0, le=LONGEST_FAULT_LIFE, description="seconds of clock time")
                          ] | None = None  # fmt: skip
    """Seconds of clock time after which the rule goes."""

    @property
    def effects(self) -> list[str]:
        """The effects given, by field name."""
        return [name for name in (*API_EFFECTS, *WEBHOOK_EFFECTS[1:]) if getattr(self, name) not in (None, False)]

    def problems(self) -> list[tuple[str | None, str]]:
        """What breaks the rules between fields: a rule is for API requests or for webhooks, and has
        exactly one effect of its kind."""
        if self.path is None and self.webhook is None:
            return [("path", "Give path (a rule for API requests) or webhook (a rule for webhook deliveries)")]
        if self.path is not None and self.webhook is not None:
            return [("webhook", "A rule is for API requests (path) or webhook deliveries (webhook), not both")]
        allowed, other = (API_EFFECTS, "webhook") if self.path is not None else (WEBHOOK_EFFECTS, "API")
        wrong = [name for name in self.effects if name not in allowed]
        if self.webhook is not None and self.method is not None:
            wrong.insert(0, "method")
        if wrong:
            return [(name, f"This field is for {other} rules only") for name in wrong]
        found: list[tuple[str | None, str]] = []
        if len(self.effects) != 1:
            said = ", ".join(allowed[:-1]) + f" or {allowed[-1]}"
            found.append((self.effects[1] if self.effects else None, f"Give exactly one effect: {said}"))
        if self.retry_after is not None and self.status is None:
            found.append(("retry_after", "retry_after goes with status"))
        return found
