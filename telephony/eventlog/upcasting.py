"""Upcasters turn stored event data of an old schema version into the current shape, on read.

Register `(type, from_schema) -> function(data) -> data`; chains run until no upcaster matches, so a
log written by any earlier release replays forever. Stored tags are never renamed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class Upcasters:
    def __init__(self) -> None:
        self._steps: dict[tuple[str, int], Upcaster] = {}

    def register(self, type_: str, from_schema: int, step: Upcaster) -> None:
        self._steps[(type_, from_schema)] = step

    def upcast(self, type_: str, schema: int, data: Any) -> tuple[int, Any]:
        while (step := self._steps.get((type_, schema))) is not None:
            data = step(data)
            schema += 1
        return schema, data

    def changes(self, type_: str) -> bool:
        """Whether some stored data of this type may be upcast."""
        return any(step_type == type_ for step_type, _ in self._steps)

    def __bool__(self) -> bool:
        return bool(self._steps)
