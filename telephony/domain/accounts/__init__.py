"""The rules of accounts (customers, users, tokens) as pure decisions over folded state.

Each aggregate is frozen state folded from its own stream by `evolve_*`. A command is a function
of that state, of the facts across streams it needs (an email in use elsewhere, a token name in
use, the live tokens to revoke) given by the caller, and of ids and times given by the caller too;
it returns the events to record (`NewEvent`s), or raises a domain error. Nothing here reads a clock,
draws a random id or does I/O, so the tests read: given these events, when this command, then
these events (tests/domain/test_accounts.py). The events are `domain.events.accounts`'.
"""

from ..events.base import fold
from .customers import Customer, close_customer, customer_stream, evolve_customer, open_customer
from .tokens import Token, evolve_token, issue_token, revocations, revoke_token, token_stream, touch_token
from .users import (
    BAD_CODE,
    BAD_RESET,
    Challenge,
    Reset,
    User,
    change_user,
    complete_reset,
    evolve_user,
    issue_challenge,
    pass_challenge,
    register_user,
    remember_devices,
    remove_user,
    request_reset,
    user_stream,
)

__all__ = [
    "BAD_CODE", "BAD_RESET", "Challenge", "Customer", "Reset", "Token", "User", "change_user", "close_customer",
    "complete_reset", "customer_stream", "evolve_customer", "evolve_token", "evolve_user", "fold", "issue_challenge",
    "issue_token", "open_customer", "pass_challenge", "register_user", "remember_devices", "remove_user",
    "request_reset", "revocations", "revoke_token", "token_stream", "touch_token", "user_stream",
]  # fmt: skip
