"""Customer module: queue groups, user groups and user group policies.

Users are provisioned by the platform, not created through the API, so they have no schema here.
"""

from typing import Annotated

import msgspec

from ..types import Body, Name, Resource

Color = Annotated[str, msgspec.Meta(min_length=1, max_length=32, description="a CSS color, e.g. #1e90ff")]


class QueueGroup(Resource):
    id: int = 0
    name: str | None = None


class QueueGroupCreate(Body):
    """The spec documents no body; a queue group is its name."""

    name: Name


class UserGroup(Resource):
    id: int = 0
    color: str | None = None
    name: str | None = None


class UserGroupCreate(Body):
    name: Name
    color: Color | None = None


class UserGroupPolicy(UserGroup):
    """Same shape as a user group (spec)."""


class UserGroupPolicyCreate(UserGroupCreate):
    """Same body as a user group (spec)."""
