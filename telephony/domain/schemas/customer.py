"""Customer module: queue groups, user groups and user group policies.

Users are provisioned by the platform, not created through the API, so they have no schema here.
"""

from typing import Annotated

import msgspec

from ..types import Body, Name, Resource

Color = Annotated[str, msgspec.Meta(min_length=1, max_length=32, description="a CSS color, e.g. #1e90ff")]


class QueueGroup(Resource):
    id: int = 0
    """The queue group's id."""
    name: str | None = None
    """The queue group's name."""


class QueueGroupCreate(Body):
    """The spec documents no body; a queue group is its name."""

    name: Name


class UserGroup(Resource):
    id: int = 0
    """The group's id."""
    color: str | None = None
    """The group's colour."""
    name: str | None = None
    """The group's name."""


class UserGroupCreate(Body):
    name: Name
    color: Color | None = None


class UserGroupPolicy(UserGroup):
    """Same shape as a user group (spec)."""


class UserGroupPolicyCreate(UserGroupCreate):
    """Same body as a user group (spec)."""
