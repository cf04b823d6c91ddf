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
    """The setting's id."""
    allowed_countries: str | None = None
    """The countries whose visitors may ask to be called (comma-separated ISO codes)."""
    button_id: int | None = None
    """The widget's button."""
    created_at: str | None = None
    """When it was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""
    culture: int | None = None
    """The widget's language and region (the `culture` dictionary)."""
    ddi: int | None = None
    """The number that calls the visitor back."""
    floating_icon: bool | None = None
    """Whether the widget floats over the page."""
    max_call_rate: float | None = None
    """The highest per-minute rate a call back may cost."""
    name: str | None = None
    """The setting's name."""
    position: int | None = None
    """Where the widget sits: bottom right, bottom left, top right, top left (the `callmeback_position` dictionary)."""
    privacy_policy_url: str | None = None
    """The privacy policy the widget links to."""
    show_to_allowed_countries_only: bool | None = None
    """Whether visitors of other countries see no widget."""
    title: str | None = None
    """The widget's title."""
    welcome_screen_msg: str | None = None
    """The widget's welcome message."""


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
    """The button's id."""
    name: str | None = None
    """The button's name."""
    data_online: str | None = None
    """The button's look while agents are online."""
    data_offline: str | None = None
    """The button's look while no agent is online."""
    created_at: str | None = None
    """When it was made (UTC, `YYYY-MM-DD HH:MM:SS`)."""


class CallMeBackButtonCreate(Body):
    """The spec documents the PATCH body only; POST takes the same fields, `name` required."""

    name: Name
    data_online: str | None = None
    data_offline: str | None = None
