"""What an operation takes and answers, declared on its `Route` for the OpenAPI document.

Every hand-written route carries its `Shape`; registry routes get theirs from their resource's
declaration. `telephony/openapi.py` turns the shapes into the document.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import msgspec

if TYPE_CHECKING:
    from ..collections import Kind

JSON = "application/json"
Envelope = Literal["single", "list", "data", "bare", "none", "file"]
"""`single` {data, links}, `list` {data, total}, `data` {data} (operator answers), `bare` the model
itself, `none` no body, `file` a file of `media` type."""


@dataclass(frozen=True)
class Shape:
    """What one operation takes and answers. `answer` is the model inside the envelope."""

    answer: Any = None
    envelope: Envelope = "single"
    status: int = 200
    body: Any = None
    listing: Mapping[str, Kind] | None = None
    includes: tuple[str, ...] = ()
    errors: tuple[int, ...] = ()
    also: Mapping[int, Any] = field(default_factory=dict)
    tag: str = "customer"
    media: str = JSON
    body_media: str = JSON
    """The media type of `body` when it is not JSON (a string of that type: JSON lines to import)."""
    query: Mapping[str, str] = field(default_factory=dict)
    """Optional query parameters beyond a list's (name: description), all strings."""
    security: tuple[str, ...] = ()
    """The security schemes of a route that checks its callers itself (one taking several): any will do."""


class Message(msgspec.Struct, kw_only=True):  # the answer of `responses.message`
    message: str
