"""The login family: /login, /login2fa, /logout, /ping, /password, /reset, /confirmation."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from aiohttp import web

from ..api.access import OPEN, USER
from ..api.context import meta_of, principal
from ..api.errors import BadRequest
from ..api.responses import message
from ..api.route_table import Route
from ..api.shapes import Message, Shape
from ..api.wire import read_json
from ..domain.accounts import BAD_CODE, BAD_RESET
from ..domain.types import Email
from ..keys import ACCOUNTS
from ..security import check_password, new_code, new_token
from ..security import digest as digest_of
from . import decisions
from . import projections as read
from .answers import Challenge, LoginResult
from .models import EmailOnly, Login, Login2fa, Reset
from .service import Accounts

BAD_LOGIN = "Invalid email and/or password"


def _valid_email(email: str) -> str:
    try:
        return msgspec.convert(email, Email)
    except msgspec.ValidationError:
        raise BadRequest.field("email", "This value is not a valid email address.") from None


async def _issue_login(accounts: Accounts, request: web.Request, user_id: int, customer_id: int) -> web.Response:
    meta = msgspec.structs.replace(meta_of(request), user_id=user_id, customer_id=customer_id, token_kind="password")
    issued = await accounts.issue(user_id, customer_id, "login", meta,
                                  inactivity=accounts.inactivity_for(meta.api_version))  # fmt: skip
    return message("Login successful", user_token=issued.token, user_id=user_id)


async def checked_login(accounts: Accounts, email: str, password: str, remote: str | None) -> read.Login:
    """The account an email and password name, throttled per email and address; a 400 otherwise."""
    keys = (f"email:{email.lower()}", f"addr:{remote}")
    accounts.throttle.check(*keys)
    found = await read.login_of(accounts.reader, email)
    ok = await asyncio.to_thread(check_password, password, found.password_hash if found else None)
    account = accounts.index.accounts.get(found.user_id) if found else None
    if not ok or found is None or account is None or not account.active:
        await accounts.throttle.failed(*keys)
        raise BadRequest(BAD_LOGIN)
    accounts.throttle.succeeded(keys[0])
    return found


async def login(request: web.Request) -> web.Response:
    accounts = request.app[ACCOUNTS]
    body = await read_json(request, Login)
    found = await checked_login(accounts, body.email, body.password, request.remote)
    known_device = body.device_fingerprint and digest_of(body.device_fingerprint) in found.devices
    if found.two_factor == "E" and not known_device:
        return await _challenge(accounts, request, found.user_id, body.email, body.device_fingerprint)
    return await _issue_login(accounts, request, found.user_id, found.customer_id)


async def _challenge(accounts: Accounts, request: web.Request, user_id: int, email: str,
                     fingerprint: str | None) -> web.Response:  # fmt: skip
    """Mails a code; the fingerprint of the device that logged in is kept for `add_device`."""
    nonce, code = new_token(accounts.entropy), new_code(entropy=accounts.entropy)
    code_hash = await accounts.hashed(code)
    expires = accounts.clock.time() + accounts.settings.auth.two_factor_ttl_seconds
    device_digest = digest_of(fingerprint) if fingerprint else None
    meta = meta_of(request)
    await accounts.log.transact(
        decisions.issue_challenge(user_id, digest_of(nonce), code_hash, expires, device_digest), meta
    )
    await accounts.send_mail(email, "Your login code", f"Your login code is {code}", meta)
    return message("A login code has been sent to your email address", status=202, nonce=nonce)


async def login2fa(request: web.Request) -> web.Response:
    accounts = request.app[ACCOUNTS]
    body = await read_json(request, Login2fa)
    keys = (f"nonce:{digest_of(body.nonce)}", f"addr:{request.remote}")
    accounts.throttle.check(*keys)
    nonce_digest, now = digest_of(body.nonce), accounts.clock.time()
    pending = await read.challenge_of(accounts.reader, nonce_digest)
    ok = await asyncio.to_thread(check_password, body.code, pending.code_hash if pending else None)
    if not ok or pending is None or pending.expires_at < now:
        await accounts.throttle.failed(*keys)
        raise BadRequest(BAD_CODE)
    device_digest = digest_of(body.device_fingerprint) if body.device_fingerprint else None
    passed = decisions.pass_challenge(pending.user_id, nonce_digest, code_matches=ok, now=now,
                                      device_digest=device_digest, add_device=bool(body.add_device))  # fmt: skip
    await accounts.log.transact(passed, meta_of(request))
    return await _issue_login(accounts, request, pending.user_id, pending.customer_id)


async def logout(request: web.Request) -> web.Response:
    """Ends the login session the request used; API tokens and API keys outlive it."""
    accounts, who = request.app[ACCOUNTS], principal(request)
    if who.token_kind == "login":
        await accounts.revoke([who.token_id], "logout", meta_of(request))
    return message("Logged out")


async def ping(request: web.Request) -> web.Response:
    return message("pong")


async def _addressee(request: web.Request) -> tuple[Accounts, str, int | None]:
    """The accounts service, the valid email of an `{email}` body, and its user's id if registered."""
    accounts = request.app[ACCOUNTS]
    email = _valid_email((await read_json(request, EmailOnly)).email)
    return accounts, email, await read.user_id_of(accounts.reader, email)


async def password(request: web.Request) -> web.Response:
    """Mails a single-use reset token; the answer is the same whether or not the address is known."""
    accounts, email, user_id = await _addressee(request)
    if user_id is not None:
        token = new_token(accounts.entropy)
        expires = accounts.clock.time() + accounts.settings.auth.reset_token_ttl_seconds
        meta = meta_of(request)
        await accounts.log.transact(decisions.request_reset(user_id, digest_of(token), expires), meta)
        await accounts.send_mail(email, "Reset your password", f"Your password reset token is {token}", meta)
    return message("If this address is registered, a password reset email has been sent")


async def reset(request: web.Request) -> web.Response:
    accounts = request.app[ACCOUNTS]
    body = await read_json(request, Reset)
    keys = (f"addr:{request.remote}",)
    accounts.throttle.check(*keys)
    reset_digest = digest_of(body.token)
    pending = await read.reset_of(accounts.reader, reset_digest)
    if pending is None or pending[1] < accounts.clock.time():
        await accounts.throttle.failed(*keys)
        raise BadRequest.field("token", BAD_RESET)
    password_hash = await accounts.hashed(body.password)
    completed = decisions.complete_reset(pending[0], reset_digest, password_hash, accounts.clock.time())
    await accounts.log.transact(completed, meta_of(request))
    return message("Your password has been changed")


async def confirmation(request: web.Request) -> web.Response:
    accounts, email, user_id = await _addressee(request)
    if user_id is not None:
        await accounts.send_mail(email, "Confirm your account", "Your account is confirmed and ready to use.",
                                 meta_of(request))  # fmt: skip
    return message("If this address is registered, a confirmation email has been sent")


def _shape(answer: Any = Message, body: Any = None, errors: tuple[int, ...] = (400,), **kw: Any) -> Shape:
    return Shape(answer, "bare", body=body, errors=errors, tag="authentication", **kw)


ROUTES = [
    Route("POST", "/login", login, OPEN, shape=_shape(LoginResult, Login, (400, 429), also={202: Challenge})),
    Route("POST", "/login2fa", login2fa, OPEN, shape=_shape(LoginResult, Login2fa, (400, 429))),
    Route("POST", "/logout", logout, USER, shape=_shape(errors=())),
    Route("GET", "/ping", ping, USER, shape=_shape(errors=())),
    Route("POST", "/confirmation", confirmation, OPEN, shape=_shape(body=EmailOnly)),
    Route("POST", "/password", password, OPEN, shape=_shape(body=EmailOnly)),
    Route("POST", "/reset", reset, OPEN, shape=_shape(body=Reset, errors=(400, 429))),
]
