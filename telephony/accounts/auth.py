"""Request authentication (both schemes, both versions)."""

from __future__ import annotations

import base64
import binascii

from aiohttp import web

from ..api.context import Principal
from ..api.errors import Unauthorized
from ..keys import ACCOUNTS, PRINCIPAL
from ..security import digest


def credentials(request: web.Request) -> tuple[str, int | None]:
    """The token (or API key) a request presents, and the user id a Basic pair claims."""
    token = request.headers.get("X-Auth-Token", "").strip()
    if token:
        return token, None
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "basic" and value:
        try:
            user, sep, secret = base64.b64decode(value.strip(), validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            raise Unauthorized("Malformed Basic credentials: expected base64(user_id:token)") from None
        if not sep or not secret or not user.isdigit():
            raise Unauthorized("Malformed Basic credentials: expected base64(user_id:token)")
        return secret, int(user)
    raise Unauthorized("Missing user token: send X-Auth-Token, or Basic user_id:token")


async def authenticate(request: web.Request) -> None:
    token, claimed_user = credentials(request)
    await authenticate_token(request, token, claimed_user)


async def authenticate_token(request: web.Request, token: str, claimed_user: int | None = None) -> None:
    """Set the request's principal from a token (the header's, or a dashboard session's cookie)."""
    accounts = request.app[ACCOUNTS]
    session = accounts.index.by_digest.get(digest(token))
    now = accounts.clock.time()
    if session is None or (claimed_user is not None and claimed_user != session.user_id):
        raise Unauthorized(f"User token {token} not found")
    if session.expired(now, accounts.activity.last_seen.get(session.token_id, 0.0)):
        raise Unauthorized(f"User token {token} has expired")
    account = accounts.index.accounts.get(session.user_id)
    if account is None or not account.active:
        raise Unauthorized(f"User token {token} not found")
    if accounts.activity.seen(session, now):
        await accounts.touch(session.token_id, now)
    request[PRINCIPAL] = Principal(
        user_id=session.user_id, customer_id=session.customer_id, is_root=account.is_root, roles=account.roles,
        token_id=session.token_id, token_kind=session.kind, token_digest=session.digest,
    )  # fmt: skip
