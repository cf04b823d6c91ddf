"""Who may call a route: every `Route` declares its `Access`, and the pipeline checks it, so no handler
has a check to remember.

    OPEN        no credentials asked (login, password reset, health, the docs; the dashboard's pages
                and the event stream authenticate themselves)
    CONTROL     the operator: the control key
    USER        any authenticated user
    may_read(m)    a user whose roles allow reading ACL module `m` (`domain/acl.py`)
    may_change(m)  a user whose roles allow changing `m`
    ROOT        the customer's root administrator

The pipeline authenticates first (401), then checks what only the path says (a number beyond 64 bits,
404; an include the route does not offer, 400), then the roles (403), then runs the handler. A rule
on the records themselves (another customer's id is a 404; a user may change its own audio, the root
administrator anyone's) is the handler's: it needs the record.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from aiohttp import web

from ..domain import acl
from ..keys import PRINCIPAL
from .errors import Forbidden

Kind = Literal["open", "control", "user", "module", "root"]
ONLY_ROOT = "Access denied: only the root administrator may do this"


@dataclass(frozen=True)
class Access:
    kind: Kind
    module: str | None = None
    """The ACL module a `module` access reads or changes."""
    write: bool = False
    refusal: str | None = None
    """The 403's message, when it says more than which module the roles do not allow."""

    @property
    def authenticated(self) -> bool:
        """Whether a user must be authenticated (the operator's routes take the control key instead)."""
        return self.kind in ("user", "module", "root")

    def check(self, request: web.Request) -> None:
        """Refuse (403) an authenticated caller this access does not let in."""
        if self.kind in ("module", "root"):
            who = request[PRINCIPAL]
            if (why := self.refused(who.is_root, who.roles)) is not None:
                raise Forbidden(why)

    def refused(self, is_root: bool, roles: tuple[str, ...]) -> str | None:
        """Why a user of these roles may not do what the route does (the 403's message), or None. SIP
        asks it too: a softphone's INVITE places a call as `POST /calls` does, under that route's access."""
        if self.kind == "module":
            assert self.module is not None
            if not _allowed(is_root, roles, self.module, self.write):
                doing = "changing" if self.write else "reading"
                return self.refusal or f"Access denied: your roles do not allow {doing} {self.module}"
        elif self.kind == "root" and not is_root:
            return self.refusal or ONLY_ROOT
        return None

    def __str__(self) -> str:
        if self.kind == "module":
            return f"{'may change' if self.write else 'may read'} {self.module}"
        return self.kind


OPEN = Access("open")
CONTROL = Access("control")
USER = Access("user")
ROOT = Access("root")


def may_read(module: str, *, refusal: str | None = None) -> Access:
    return Access("module", _known(module), write=False, refusal=refusal)


def may_change(module: str, *, refusal: str | None = None) -> Access:
    return Access("module", _known(module), write=True, refusal=refusal)


def _known(module: str) -> str:
    if module not in acl.MODULES:
        raise ValueError(f"unknown ACL module {module!r}; known: {', '.join(acl.MODULES)}")
    return module


@cache
def _allowed(is_root: bool, roles: tuple[str, ...], module: str, write: bool) -> bool:
    """`acl.allowed`, asked once per combination (a handful exist)."""
    return acl.allowed(is_root, list(roles), module, write)
