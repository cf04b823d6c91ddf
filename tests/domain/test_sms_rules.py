"""SMS parts counted as carriers count them: GSM-7 with its extension table, and UCS-2."""

from __future__ import annotations

import pytest

from telephony.domain.sms import GSM7, UCS2, counted, delivery


@pytest.mark.parametrize(
    ("text", "encoding", "length", "parts"),
    [
        ("a" * 160, GSM7, 160, 1),
        ("a" * 161, GSM7, 161, 2),
        ("a" * 306, GSM7, 306, 2),
        ("a" * 307, GSM7, 307, 3),
        ("{" * 80, GSM7, 160, 1),  # each extension character is two septets
        ("{" * 81, GSM7, 162, 2),
        ("a" * 152 + "€" + "a" * 10, GSM7, 164, 2),  # the escape pair is never split: it starts part two
        ("Zażółć gęślą jaźń", UCS2, 17, 1),
        ("ż" * 70, UCS2, 70, 1),
        ("ż" * 71, UCS2, 71, 2),
        ("ż" * 134, UCS2, 134, 2),
        ("ż" * 135, UCS2, 135, 3),
        ("😀" * 35, UCS2, 70, 1),  # an emoji is two UTF-16 units
        ("😀" * 34 + "ż" * 33 + "😀", UCS2, 103, 2),  # a surrogate pair is never split
        ("", GSM7, 0, 0),
    ],
)
def test_a_text_is_counted_as_carriers_count_it(text, encoding, length, parts):
    found = counted(text)
    assert (found.encoding, found.length, found.parts) == (encoding, length, parts)


def test_a_simulated_delivery_is_the_same_for_the_same_seed():
    assert delivery(7, 3, 0.5, 1, 3) == delivery(7, 3, 0.5, 1, 3)
    assert {delivery(7, n, 0.5, 1, 3).delivered for n in range(40)} == {True, False}
    assert all(not delivery(7, n, 1.0, 1, 3).delivered and delivery(7, n, 1.0, 1, 3).reason for n in range(5))
