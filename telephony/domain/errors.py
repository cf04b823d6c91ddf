"""What a rule refuses, named without HTTP: the API maps each kind to a status (`api/errors.py`).

    DomainError(message, problems)
     ├── Invalid      a value breaks a rule                        400
     ├── Denied       the actor may not do this                     403
     ├── Unknown      nothing of that id exists for the actor       404
     ├── Clash        the change collides with what exists          409
     ├── Unpaid       the balance cannot pay for it                 402
     ├── Unmet        a precondition outside the request is missing 412
     └── TooFrequent  too many attempts; try again later            429

`problems` are `(field, message)` pairs, one per broken rule; `field` is None for a problem not tied
to one field. A check reports every problem it finds at once (`DomainError.of`), not the first only.
Domain code, the collection engine and decisions raise these; none of them knows HTTP.
"""

from __future__ import annotations

from collections.abc import Sequence

Problems = list[tuple[str | None, str]]
"""(field, message) pairs, one per broken rule."""


def said(problems: Sequence[tuple[str | None, str]]) -> str:
    """One message for all the problems, as clients print them: each `field: message`, joined by `; `."""
    return "; ".join(f"{field}: {message}" if field else message for field, message in problems)


class DomainError(Exception):
    def __init__(self, message: str, problems: Sequence[tuple[str | None, str]] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.problems = list(problems) or [(None, message)]

    @classmethod
    def field(cls, field: str | None, message: str):
        """One problem with one field; the message names the field, as clients print it."""
        return cls(said([(field, message)]), [(field, message)])

    @classmethod
    def of(cls, problems: Sequence[tuple[str | None, str]]):
        """Every problem a check found (at least one), in one refusal."""
        return cls(said(problems), problems)


class Invalid(DomainError):
    """A value breaks a rule."""


class Denied(DomainError):
    """The actor may not do this."""


class Unknown(DomainError):
    """Nothing of that id exists for the actor (another customer's records do not exist for it)."""


class Clash(DomainError):
    """The change collides with what exists: a stream moved on, a natural id is taken."""


class Unpaid(DomainError):
    """The customer's balance cannot pay for what is asked (a call, when balances are enforced)."""


class Unmet(DomainError):
    """A precondition outside the request is missing (no registered client, no SMS number)."""


class TooFrequent(DomainError):
    """Too many attempts in a while; `retry_after` seconds until the next may be made."""

    def __init__(self, message: str, problems: Sequence[tuple[str | None, str]] = (), *, retry_after: int) -> None:
        super().__init__(message, problems)
        self.retry_after = retry_after
