"""ACL roles as data: which modules each role may read or write.

Root users (User.is_root) may do everything, including managing users and deleting the customer.
Other users get the union of their roles' grants; without roles they are agents.
"""

from __future__ import annotations

import msgspec

MODULES = ("customer", "settings", "storage", "history", "calls", "reports", "callmeback")
READ, WRITE = "read", "write"


class AclRole(msgspec.Struct, kw_only=True, frozen=True):
    id: int
    _name: str = msgspec.field(name="_name")
    name: str
    product_code: str = "PBX"


class Grant(msgspec.Struct, frozen=True):
    role: AclRole
    writes: frozenset[str]
    reads: frozenset[str]


_ALL = frozenset(MODULES)
ROLE_TABLE: tuple[Grant, ...] = (
    Grant(AclRole(id=1, _name="ROLE_ROOT_ADMIN", name="Root administrator"), _ALL, _ALL),
    Grant(AclRole(id=2, _name="ROLE_ADMIN", name="Administrator"), _ALL - {"customer"}, _ALL),
    Grant(AclRole(id=3, _name="ROLE_AGENT", name="Agent"), frozenset({"calls", "storage"}), _ALL),
    Grant(AclRole(id=4, _name="ROLE_READ_ONLY", name="Read-only"), frozenset(), _ALL),
)
DEFAULT_ROLE = "ROLE_AGENT"
ROLES = {grant.role._name: grant for grant in ROLE_TABLE}


def role_name(value: int | str) -> str:
    """A role given by id or `_name`, as its `_name`; ValueError for an unknown one."""
    for grant in ROLE_TABLE:
        if value in (grant.role.id, grant.role._name, str(grant.role.id)):
            return grant.role._name
    raise ValueError(f"unknown ACL role {value!r}; known: {', '.join(ROLES)}")


def allowed(is_root: bool, roles: list[str], module: str, write: bool) -> bool:
    if is_root:
        return True
    grants = [ROLES[r] for r in roles or [DEFAULT_ROLE] if r in ROLES]
    return any(module in (g.writes if write else g.reads) for g in grants)
