"""The login family: /login, /login2fa, /logout, /ping, /password, /reset, /confirmation."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from aiohttp import web

from ..api.context import meta_of, principal
from ..api.errors import BadRequest
from ..api.responses import message
from ..api.routing import Route
from ..api.shapes import Message, Shape
from ..api.wire import read_json
from ..domain.types import Email
from ..eventlog import NewEvent
from ..keys import ACCOUNTS
from ..security import check_password, hash_password, new_code, new_token
from ..security import digest as digest_of
from . import commands
from . import events as ev
from .answers import Challenge, LoginResult
from .models import EmailOnly, Login, Login2fa, Reset
from .service import Accounts

BAD_LOGIN = "Invalid email and/or password"
BAD_CODE = "Invalid code and/or nonce"
BAD_RESET = "Invalid or expired reset token"


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


async def login(request: web.Request) -> web.Response:
    accounts = request.app[ACCOUNTS]
    body = await read_json(request, Login)
    keys = (f"email:{body.email.lower()}", f"addr:{request.remote}")
    accounts.throttle.check(*keys)
    row = await accounts.one(
        "SELECT c.user_id, c.customer_id, c.password_hash, c.two_factor, c.devices FROM credentials c "
        "WHERE c.email = ? AND c.deleted = 0", (body.email.lower(),),
    )  # fmt: skip
    ok = await asyncio.to_thread(check_password, body.password, row[2] if row else None)
    account = accounts.index.accounts.get(row[0]) if row else None
    if not ok or row is None or account is None or not account.active:
        await accounts.throttle.failed(*keys)
        raise BadRequest(BAD_LOGIN)
    accounts.throttle.succeeded(keys[0])
    user_id, customer_id, _, two_factor, devices = row
    known_device = body.device_fingerprint and digest_of(body.device_fingerprint) in devices
    if two_factor == "E" and not known_device:
        return await _challenge(accounts, request, user_id, body.email, body.device_fingerprint)
    return await _issue_login(accounts, request, user_id, customer_id)


async def _challenge(accounts: Accounts, request: web.Request, user_id: int, email: str,
                     fingerprint: str | None) -> web.Response:  # fmt: skip
    """Mails a code; the fingerprint of the device that logged in is kept for `add_device`."""
    nonce, code = new_token(), new_code()
    code_hash = await asyncio.to_thread(hash_password, code)
    expires = accounts.clock.time() + accounts.settings.auth.two_factor_ttl_seconds
    data = {"id": user_id, "nonce_digest": digest_of(nonce), "code_hash": code_hash, "expires_at": expires,
            "device_digest": digest_of(fingerprint) if fingerprint else None}  # fmt: skip
    meta = meta_of(request)
    await accounts.log.append([NewEvent(stream=f"user-{user_id}", type=ev.CHALLENGE_ISSUED, data=data)], meta)
    await accounts.send_mail(email, "Your login code", f"Your login code is {code}", meta)
    return message("A login code has been sent to your email address", status=202, nonce=nonce)


async def login2fa(request: web.Request) -> web.Response:
    accounts = request.app[ACCOUNTS]
    body = await read_json(request, Login2fa)
    keys = (f"nonce:{digest_of(body.nonce)}", f"addr:{request.remote}")
    accounts.throttle.check(*keys)
    row = await accounts.one(
        "SELECT h.user_id, h.code_hash, h.expires_at, c.customer_id, h.device_digest FROM challenges h "
        "JOIN credentials c ON c.user_id = h.user_id WHERE h.nonce_digest = ? AND h.used = 0 AND c.deleted = 0",
        (digest_of(body.nonce),),
    )  # fmt: skip
    ok = await asyncio.to_thread(check_password, body.code, row[1] if row else None)
    if not ok or row is None or row[2] < accounts.clock.time():
        await accounts.throttle.failed(*keys)
        raise BadRequest(BAD_CODE)
    user_id, _, _, customer_id, device_digest = row
    passed = [NewEvent(stream=f"user-{user_id}", type=ev.CHALLENGE_PASSED,
                       data={"id": user_id, "nonce_digest": digest_of(body.nonce)})]  # fmt: skip
    if body.device_fingerprint:
        device_digest = digest_of(body.device_fingerprint)
    if body.add_device and device_digest:
        passed.append(NewEvent(stream=f"user-{user_id}", type=ev.DEVICE_ADDED,
                               data={"id": user_id, "device_digest": device_digest}))  # fmt: skip
    await accounts.log.append(passed, meta_of(request))
    return await _issue_login(accounts, request, user_id, customer_id)


async def logout(request: web.Request) -> web.Response:
    """Ends the login session the request used; API tokens and API keys outlive it."""
    accounts, who = request.app[ACCOUNTS], principal(request)
    if who.token_kind == "login":
        await accounts.revoke([who.token_id], "logout", meta_of(request))
    return message("Logged out")


async def ping(request: web.Request) -> web.Response:
    return message("pong")


async def _addressee(request: web.Request) -> tuple[Accounts, str, tuple | None]:
    """The accounts service, the valid email of an `{email}` body, and its user's row if registered."""
    accounts = request.app[ACCOUNTS]
    email = _valid_email((await read_json(request, EmailOnly)).email)
    row = await accounts.one("SELECT user_id FROM credentials WHERE email = ? AND deleted = 0", (email.lower(),))
    return accounts, email, row


async def password(request: web.Request) -> web.Response:
    """Mails a single-use reset token; the answer is the same whether or not the address is known."""
    accounts, email, row = await _addressee(request)
    if row is not None:
        token = new_token()
        expires = accounts.clock.time() + accounts.settings.auth.reset_token_ttl_seconds
        data = {"id": row[0], "reset_digest": digest_of(token), "expires_at": expires}
        meta = meta_of(request)
        await accounts.log.append([NewEvent(stream=f"user-{row[0]}", type=ev.RESET_REQUESTED, data=data)], meta)
        await accounts.send_mail(email, "Reset your password", f"Your password reset token is {token}", meta)
    return message("If this address is registered, a password reset email has been sent")


async def reset(request: web.Request) -> web.Response:
    accounts = request.app[ACCOUNTS]
    body = await read_json(request, Reset)
    keys = (f"addr:{request.remote}",)
    accounts.throttle.check(*keys)
    reset_digest = digest_of(body.token)
    row = await accounts.one(
        "SELECT user_id, expires_at FROM resets WHERE reset_digest = ? AND used = 0", (reset_digest,)
    )
    if row is None or row[1] < accounts.clock.time():
        await accounts.throttle.failed(*keys)
        raise BadRequest.field("token", BAD_RESET)
    user_id = row[0]
    password_hash = await asyncio.to_thread(hash_password, body.password)

    def decide(conn):
        used = conn.execute("SELECT used FROM resets WHERE reset_digest = ?", (reset_digest,)).fetchone()
        if used is None or used[0]:
            raise BadRequest.field("token", BAD_RESET)
        stream = f"user-{user_id}"
        return [
            NewEvent(stream=stream, type=ev.RESET_USED, data={"id": user_id, "reset_digest": reset_digest}),
            NewEvent(stream=stream, type=ev.PASSWORD_CHANGED, data={"id": user_id, "password_hash": password_hash}),
            *commands.revocations(commands.live_tokens(conn, user_id=user_id), "password_reset"),
        ]

    await accounts.log.transact(decide, meta_of(request))
    return message("Your password has been changed")


async def confirmation(request: web.Request) -> web.Response:
    accounts, email, row = await _addressee(request)
    if row is not None:
        await accounts.send_mail(email, "Confirm your account", "Your account is confirmed and ready to use.",
                                 meta_of(request))  # fmt: skip
    return message("If this address is registered, a confirmation email has been sent")


def _shape(answer: Any = Message, body: Any = None, errors: tuple[int, ...] = (400,), **kw: Any) -> Shape:
    return Shape(answer, "bare", body=body, errors=errors, tag="authentication", **kw)


ROUTES = [
    Route("POST", "/login", login, auth=False, shape=_shape(LoginResult, Login, (400, 429), also={202: Challenge})),
    Route("POST", "/login2fa", login2fa, auth=False, shape=_shape(LoginResult, Login2fa, (400, 429))),
    Route("POST", "/logout", logout, shape=_shape(errors=())),
    Route("GET", "/ping", ping, shape=_shape(errors=())),
    Route("POST", "/confirmation", confirmation, auth=False, shape=_shape(body=EmailOnly)),
    Route("POST", "/password", password, auth=False, shape=_shape(body=EmailOnly)),
    Route("POST", "/reset", reset, auth=False, shape=_shape(body=Reset, errors=(400, 429))),
]
