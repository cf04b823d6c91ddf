"""User attributes as the operator sets them: creating a user, and `PATCH /_telephony/users/{id}`.

The bodies are derived from the User model once, every attribute optional, so creating a user and
changing one take and refuse the same things:
- each attribute has the User model's type; a field the model does not have is refused;
- a coded attribute (`monitor`, `fm_strategy`, `final_dst_type`, ... as `GET /users/dictionaries`
  would list them) takes a code or a name and is stored as the code;
- `roles` are role `_name`s or ids, stored as `_name`s (none: an agent);
- `ext` is an extension calls can dial, 2 to 6 digits (one user's per customer: the decision checks it,
  with the records the attributes name, `USER_REFERENCES`).
What the platform sets (`id`, `customer`, `created_at`, `is_initial`), the login `email` and the
count of registered SIP clients (`nb_sip_locations`, changed by registering clients) cannot be set by
a change: sent back unchanged they are taken (copy and edit), changed they are a 400 naming them.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from ..domain import acl
from ..domain.bodies import echoing, read
from ..domain.dictionaries import DICTIONARIES, RESOURCE_DICTIONARIES, Code
from ..domain.errors import Problems
from ..domain.types import Email, coded
from .models import PROTECTED_FIELDS, Password, User

CODED = RESOURCE_DICTIONARIES["users"]
Extension = Annotated[str, msgspec.Meta(pattern=r"^[0-9]{2,6}$", description="an extension: 2 to 6 digits")]
_TYPES: dict[str, Any] = {"roles": list[int | str], "ext": Extension | None}
"""Attributes taken otherwise than the User model shows them."""
FIXED = PROTECTED_FIELDS | {"nb_sip_locations"}
"""What a change of a user cannot set."""
_OWN = frozenset({"email", "password", "attributes"})


def _attribute(field: msgspec.structs.FieldInfo) -> tuple[str, Any, Any]:
    name = field.encode_name
    type_ = _TYPES.get(name) or (Annotated[Code, coded(CODED[name])] if name in CODED else field.type)
    return field.name, type_ | msgspec.UnsetType, msgspec.field(default=msgspec.UNSET, name=name)


def _attributes(name: str, leaving: frozenset[str], *first: tuple[str, Any] | tuple[str, Any, Any]) -> Any:
    """A body of `first` and every User attribute but those `leaving`, each optional."""
    taken = [_attribute(f) for f in msgspec.structs.fields(User) if f.encode_name not in leaving]
    return msgspec.defstruct(name, [*first, *taken], kw_only=True, forbid_unknown_fields=True, module=__name__)


UserAttributes = _attributes("UserAttributes", PROTECTED_FIELDS)
NewUser = _attributes("NewUser", PROTECTED_FIELDS, ("email", Email), ("password", Password),
                      ("attributes", dict[str, Any], msgspec.field(default_factory=dict)))  # fmt: skip
"""A user to create: its login, and any User attribute at the top level or under `attributes`."""
UserChange = echoing(_attributes("UserChange", FIXED), User)
"""A change of a user's attributes (`PATCH /_telephony/users/{id}`)."""


def attributes(body: msgspec.Struct) -> tuple[dict[str, Any], Problems]:
    """The attributes a body sets, as stored (codes, role `_name`s), and every problem with them. A
    new user's `attributes` object is read as its top-level fields are, and wins over them."""
    left_out = _OWN | set(getattr(type(body), "echoed", {}).values())
    sent = {k: v for k, v in msgspec.to_builtins(body).items() if k not in left_out}
    problems: Problems = []
    if isinstance(body, NewUser) and isinstance(body.attributes, dict):
        nested, problems = read(body.attributes, UserAttributes)
        if nested is not None:
            sent.update(msgspec.to_builtins(nested))
    for name in [name for name in CODED if name in sent]:
        try:
            sent[name] = DICTIONARIES[CODED[name]].to_code(sent[name])
        except ValueError as exc:  # read checked the top level: an `attributes` object's may be left
            problems.append((name, str(exc)))
    if "roles" in sent:
        sent["roles"], problems = _roles(sent["roles"], problems)
    return sent, problems


def _roles(given: list[int | str], problems: Problems) -> tuple[list[str], Problems]:
    roles: list[str] = []
    for role in given:
        try:
            roles.append(acl.role_name(role))
        except ValueError as exc:
            problems = [*problems, ("roles", str(exc))]
    return list(dict.fromkeys(roles)) or [acl.DEFAULT_ROLE], problems


def problems(body: msgspec.Struct) -> Problems:
    """What `attributes` refuses in a body (its `check` when it is read)."""
    return attributes(body)[1]
