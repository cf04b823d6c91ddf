"""Time values of filters: the fast reading of the usual forms means what `strptime` of the three
accepted formats means, for generated texts (valid, out of range, of other widths)."""

from __future__ import annotations

import random
from datetime import datetime

import pytest

from telephony.collections.filters import _time

FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d")


def by_strptime(text: str) -> str | None:
    """What the three formats make of `text`, or None when none reads it."""
    text = text.strip()
    for fmt in FORMATS:
        try:
            parsed = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return parsed.strftime("%Y-%m-%d" if fmt == "%Y-%m-%d" else "%Y-%m-%d %H:%M:%S")
    return None


def a_time(rng: random.Random) -> str:
    """A date or time whose every field may be out of range, narrower or wider than usual."""

    def field(width: int, top: int, low: int = 0) -> str:
        value = rng.randint(low, top)
        return str(value).zfill(rng.choice([width, width, width, 1, width + 1]))

    date = f"{field(4, 2100, rng.choice([0, 1900, 1900]))}-{field(2, 13)}-{field(2, 32)}"
    if rng.random() < 0.3:
        return date
    separator, tail = rng.choice([" ", "T", " ", "x"]), rng.choice(["", "", "", " ", ".5", "Z"])
    return f"{date}{separator}{field(2, 25)}:{field(2, 61)}:{field(2, 61)}{tail}"


@pytest.mark.parametrize("seed", range(3))
def test_a_time_means_what_strptime_of_the_accepted_formats_means(seed: int):
    rng = random.Random(seed)
    fast = 0
    for _ in range(3000):
        text = a_time(rng)
        try:
            got: str | None = _time(text)
        except ValueError:
            got = None
        assert got == by_strptime(text), text
        fast += got is not None
    assert fast > 500
