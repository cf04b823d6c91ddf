"""Call Me Back module: widget settings, buttons, and the websites, visitors and call records.

The spec answers websites, visitors and call records in the setting's shape; they are declared as
that shape under their own names, so a later, truer shape is a one-class change.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, ClassVar

import msgspec

from ..types import Body, Code, E164Number, Name, Resource, coded


class CallMeBackSetting(Resource):
    id: int = 0
    allowed_countries: str | None = None
    button_id: int | None = None
    created_at: str | None = None
    culture: int | None = None
    ddi: int | None = None
    floating_icon: bool | None = None
    max_call_rate: float | None = None
    name: str | None = None
    position: int | None = None
    privacy_policy_url: str | None = None
    show_to_allowed_countries_only: bool | None = None
    title: str | None = None
    welcome_screen_msg: str | None = None


class CallMeBackSettingCreate(Body):
    """`ddi_e164` (an integer, as the spec types it) is stored as the resource's `ddi` (see `stored_as`).

    `allowed_countries` has no documented type; it is kept as the resource's string (for example
    comma-separated ISO country codes).
    """

    stored_as: ClassVar[Mapping[str, str]] = MappingProxyType({"ddi_e164": "ddi"})

    name: Name
    button_id: int | None = None
    position: Annotated[Code, coded("callmeback_position")] | None = None
    floating_icon: bool | None = None
    culture: Annotated[Code, coded("culture")] | None = None
    allowed_countries: str | None = None
    show_to_allowed_countries_only: bool | None = None
    welcome_screen_msg: str | None = None
    privacy_policy_url: str | None = None
    ddi_e164: E164Number | None = None
    max_call_rate: Annotated[float, msgspec.Meta(ge=0)] | None = None
    title: str | None = None


class CallMeBackWebsite(CallMeBackSetting):
    """A website using a widget: the setting's shape (spec)."""


class CallMeBackVisitor(CallMeBackSetting):
    """A visitor who asked to be called: the setting's shape (spec)."""


class CallMeBackCdr(CallMeBackSetting):
    """A call placed through a widget: the setting's shape (spec)."""


class CallMeBackButton(Resource):
    id: int = 0
    name: str | None = None
    data_online: str | None = None
    data_offline: str | None = None
    created_at: str | None = None


class CallMeBackButtonCreate(Body):
    """The spec documents the PATCH body only; POST takes the same fields, `name` required."""

    name: Name
    data_online: str | None = None
    data_offline: str | None = None
