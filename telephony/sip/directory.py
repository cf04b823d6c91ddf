"""Who and what SIP names: a user by id (its customer, domain, name and SIP password), and the nodes
whose calls a client may watch (`<user id>`, `ivr-<id>`, `queue-<id>`, `conf-<id>`) with their owner."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from ..accounts import sealed_sip_password_of
from ..config import Sip
from ..documents import reads
from ..documents.listing import ReadStore

NODE = re.compile(r"^(?:(?P<user>[0-9]{1,18})|(?P<kind>ivr|queue|conf)-(?P<id>[0-9]{1,18}))$")
KINDS = {"ivr": "ivr", "queue": "queue", "conf": "conference"}


@dataclass(frozen=True)
class SipUser:
    id: int
    customer_id: int
    domain: str
    name: str
    number: str


@dataclass(frozen=True)
class Node:
    """What a dialog subscription watches: `kind` is `user`, `ivr`, `queue` or `conf`."""

    kind: str
    id: int

    @property
    def name(self) -> str:
        return str(self.id) if self.kind == "user" else f"{self.kind}-{self.id}"


def node_of(text: str | None) -> Node | None:
    """The node a URI's user part names, or None."""
    found = NODE.fullmatch(text or "")
    if found is None:
        return None
    return Node("user", int(found["user"])) if found["user"] else Node(found["kind"], int(found["id"]))


class Directory:
    def __init__(self, settings: Sip, reader: ReadStore, unseal: Callable[[str | None], str | None]) -> None:
        self._settings = settings
        self._reader = reader
        self._unseal = unseal

    def domain(self, customer_id: int) -> str:
        return self._settings.domain(customer_id)

    async def user(self, user_id: int) -> SipUser | None:
        """A live user by id, or None."""
        found = await reads.owned_by(self._reader, "user", user_id)
        if found is None:
            return None
        customer_id, body = found
        user = msgspec.json.decode(body)
        name = " ".join(part for part in (user.get("first_name"), user.get("last_name")) if part)
        return SipUser(user_id, customer_id, self.domain(customer_id), name, str(user.get("ext") or user_id))

    async def password(self, user_id: int) -> str | None:
        """The user's SIP password, unsealed for the one check it is needed for."""
        return self._unseal(await sealed_sip_password_of(self._reader, user_id))

    async def owner(self, node: Node) -> int | None:
        """The customer a node belongs to, or None when there is no such node."""
        found = await reads.owned_by(self._reader, "user" if node.kind == "user" else KINDS[node.kind], node.id)
        return found[0] if found else None
