"""Wire shapes of the authentication and customer endpoints."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from ..domain.bodies import echoing
from ..domain.references import Destination, Ref, Reference
from ..domain.schemas import User
from ..domain.types import Email

Password = Annotated[str, msgspec.Meta(min_length=8, max_length=256)]


USER_REFERENCES: tuple[Reference, ...] = (
    Ref("groups", "usergroup", many=True),
    Destination(cleared=("V", None)),
    Destination("fm_final_dst_type", "fm_final_dst_id", cleared=("H", None)),
    Ref("vm_announcement_id", "vmannouncement"),
    Ref("fm_announcement_id", "vmannouncement"),
    Ref("pickup_group_id", "pickupgroup"),
)
"""The User fields naming other records; a destination whose target goes falls back to the default."""
USER_FIELDS = frozenset(f.encode_name for f in msgspec.structs.fields(User))
PROTECTED_FIELDS = frozenset({"id", "customer", "customer_id_id", "created_at", "email", "is_initial"})


class NewCustomer(msgspec.Struct, kw_only=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    admin_email: Email
    admin_password: Password


class Named(msgspec.Struct, kw_only=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


SipUri = Annotated[
    str,
    msgspec.Meta(pattern=r"^[sS][iI][pP][sS]?:[!-~]+$", max_length=255,
                 description="a SIP URI: sip: or sips: and an address without spaces",
                 examples=["sip:alice@192.0.2.10:5060;transport=udp"]),
]  # fmt: skip


class NewSipRegistration(msgspec.Struct, kw_only=True):
    """A SIP client to register; what is left out is a simulated softphone's."""

    user_agent: Annotated[str, msgspec.Meta(min_length=1, max_length=255)] | None = None
    contact: SipUri | None = None


class SipRegistration(msgspec.Struct, kw_only=True):
    """A registered SIP client of a user."""

    id: int
    user_id: int
    user_agent: str
    contact: str
    registered_at: str


class Login(msgspec.Struct, kw_only=True):
    email: str
    password: str
    remember_me: bool = False
    device_fingerprint: str | None = None


class Login2fa(msgspec.Struct, kw_only=True):
    code: str
    nonce: str
    add_device: bool = False
    remember_me: bool = False
    device_fingerprint: str | None = None


class EmailOnly(msgspec.Struct, kw_only=True):
    email: str


class Reset(msgspec.Struct, kw_only=True):
    token: str
    password: Password


MAX_TOKEN_LIFE = 100 * 365 * 86_400
"""The longest API token lifetime, in seconds (100 years): beyond it a token never expires, so say 0."""


class NewApiToken(msgspec.Struct, kw_only=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    expiry: Annotated[int, msgspec.Meta(ge=0, le=MAX_TOKEN_LIFE, description="Seconds; 0 never expires")] = 0


class ApiToken(msgspec.Struct, kw_only=True):
    user_id: int
    token: str
    customer_id: int
    name: str
    host: str
    user_agent: str
    expiry: int
    last_request_at: str | None
    created_at: str


class _UserBulkItem(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    id: int
    location_id: int | str | None | msgspec.UnsetType = msgspec.UNSET
    groups: list[int] | msgspec.UnsetType = msgspec.UNSET


UserBulkItem: Any = echoing(_UserBulkItem, User, "UserBulkItem")
"""An item of `PATCH /users`: a user's location and groups; its other fields read-only (copy and edit)."""
