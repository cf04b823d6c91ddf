"""Every failure the API reports, as one exception type rendered to the spec's error body.

    ApiError(status, message, errors)
     ├── BadRequest        400  validation and login failures, one item per invalid field
     ├── Unauthorized      401  missing, unknown or expired token
     ├── Forbidden         403  authenticated but not allowed
     ├── NotFound          404  unknown id, or another customer's
     ├── PaymentRequired   402  the balance cannot pay (when balances are enforced)
     ├── Conflict          409
     ├── PreconditionFailed 412
     └── TooManyRequests   429  with `Retry-After`

The body is always `{"message": str, "errors": [{"field": str | None, "message": str}, ...]}` with at
least one item, so clients that print `errors[0].message` always have one.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from aiohttp import web

from ..domain import errors as domain
from ..eventlog import ConcurrencyError


class FieldError(msgspec.Struct):
    field: str | None
    message: str


class ErrorBody(msgspec.Struct):
    message: str
    errors: list[FieldError]


_encode = msgspec.json.encode


class ApiError(Exception):
    status = 500
    default_message = "Internal server error"

    def __init__(self, message: str | None = None, errors: Sequence[FieldError] = (), headers=None) -> None:
        self.message = message or self.default_message
        self.errors = list(errors) or [FieldError(None, self.message)]
        self.headers = headers
        super().__init__(self.message)

    def response(self) -> web.Response:
        return error_response(self.status, self.message, self.errors, self.headers)


class BadRequest(ApiError):
    status, default_message = 400, "Bad request"

    @classmethod
    def field(cls, field: str | None, message: str) -> BadRequest:
        return cls.of([(field, message)])

    @classmethod
    def of(cls, problems: Sequence[tuple[str | None, str]]) -> BadRequest:
        """Every problem a check found (at least one), one item each."""
        return cls(domain.said(problems), [FieldError(field, message) for field, message in problems])


class Unauthorized(ApiError):
    status, default_message = 401, "Unauthorized"


class Forbidden(ApiError):
    status, default_message = 403, "Access denied"


class NotFound(ApiError):
    status, default_message = 404, "Resource not found"


class Conflict(ApiError):
    status, default_message = 409, "Conflict"


class PaymentRequired(ApiError):
    status, default_message = 402, "Payment required"


class PreconditionFailed(ApiError):
    status, default_message = 412, "Precondition failed"


class TooManyRequests(ApiError):
    status, default_message = 429, "Too many requests"

    def __init__(self, message: str | None = None, errors: Sequence[FieldError] = (), *, retry_after: int) -> None:
        """`retry_after`: whole seconds until the refusal lifts, sent as `Retry-After` (RFC 9110)."""
        super().__init__(message, errors, headers={"Retry-After": str(max(1, retry_after))})


def error_response(status: int, message: str, errors: Sequence[FieldError] = (), headers=None) -> web.Response:
    body = ErrorBody(message, list(errors) or [FieldError(None, message)])
    return web.Response(status=status, body=_encode(body), content_type="application/json", headers=headers)


STATUS_OF: dict[type[domain.DomainError], type[ApiError]] = {
    domain.Invalid: BadRequest,
    domain.Denied: Forbidden,
    domain.Unknown: NotFound,
    domain.Clash: Conflict,
    domain.Unmet: PreconditionFailed,
    domain.Unpaid: PaymentRequired,
    domain.TooFrequent: TooManyRequests,
}


def from_domain(exc: domain.DomainError) -> ApiError:
    """The API error of a refusal by a rule: the same message and problems, the status of its kind."""
    kind = next(STATUS_OF[k] for k in type(exc).__mro__ if k in STATUS_OF)
    problems = [FieldError(field, message) for field, message in exc.problems]
    if isinstance(exc, domain.TooFrequent):
        return TooManyRequests(exc.message, problems, retry_after=exc.retry_after)
    return kind(exc.message, problems)


def from_conflict(exc: ConcurrencyError) -> ApiError:
    """A stream was not at the version a decision expected: someone changed it first."""
    return Conflict("This conflicts with what was recorded before for the same resource", [FieldError(None, str(exc))])
