"""Whether a record holds what an expectation says, and, when not, the first difference in words.

An expected value is matched as JSON compares: objects field by field (the record may hold more),
lists item for item, numbers by value (`5` is `5.0`; money to four places), anything else equal. An
object whose keys are all operators tests the value instead: `contains` (a text holds it, or a list
an item equal to it), `min` and `max` (bounds of a number), `len` (of a text or a list), `in` (one of
its values).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

OPERATORS = frozenset({"contains", "min", "max", "len", "in"})


def difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """The first way `actual` differs from `expected` (`context: expected 'QUEUE', got 'IVR'`), or None."""
    if isinstance(expected, dict) and expected and set(expected) <= OPERATORS:
        return _operators(expected, actual, path)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return _said(path, expected, actual)
        for key, value in expected.items():
            if key not in actual:
                return f"{path}{key}: missing (expected {value!r})"
            found = difference(value, actual[key], f"{path}{key}.")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return _said(path, expected, actual)
        return next((found for n, (e, a) in enumerate(zip(expected, actual, strict=True))
                     if (found := difference(e, a, f"{path.rstrip('.')}[{n}]."))), None)  # fmt: skip
    return None if same(expected, actual) else _said(path, expected, actual)


def same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return round(float(expected), 4) == round(float(actual), 4)
    return bool(expected == actual)


def _operators(expected: dict[str, Any], actual: Any, path: str) -> str | None:
    number = isinstance(actual, int | float) and not isinstance(actual, bool)
    sized = isinstance(actual, str | list)
    tests: dict[str, Callable[[Any], bool]] = {
        "contains": lambda value: sized and _holds(actual, value),
        "min": lambda value: number and actual >= value,
        "max": lambda value: number and actual <= value,
        "len": lambda value: sized and len(actual) == value,
        "in": lambda value: isinstance(value, list) and any(same(option, actual) for option in value),
    }
    for name, value in expected.items():
        if not tests[name](value):
            return f"{path.rstrip('.') or 'value'}: expected {_WORDS[name]} {value!r}, got {actual!r}"
    return None


_WORDS = {"contains": "to contain", "min": "at least", "max": "at most", "len": "a length of", "in": "one of"}


def _holds(actual: str | list, value: Any) -> bool:
    if isinstance(actual, str):
        return isinstance(value, str) and value in actual
    return any(same(value, item) for item in actual)


def _said(path: str, expected: Any, actual: Any) -> str:
    return f"{path.rstrip('.') or 'value'}: expected {expected!r}, got {actual!r}"
