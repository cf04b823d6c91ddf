"""What an expectation's fields match: values as JSON compares them, and the operators."""

from __future__ import annotations

import pytest

from telephony.testing.scenarios.matching import difference

HOLDS = [
    ({"duration": 5}, {"duration": 5.0, "id": 1}),
    ({"charge": 0.13}, {"charge": 0.13000000001}),
    ({"subject": {"contains": "voicemail"}}, {"subject": "New voicemail from 301"}),
    ({"labels": {"contains": 3}}, {"labels": [1, 3]}),
    ({"billsec": {"min": 10, "max": 20}}, {"billsec": 10}),
    ({"attachments": {"len": 1}}, {"attachments": [{"size": 1}]}),
    ({"state": {"in": ["RINGING", "CONNECTED"]}}, {"state": "CONNECTED"}),
    ({"attachments": [{"media_type": "audio/mpeg"}]}, {"attachments": [{"media_type": "audio/mpeg", "size": 9}]}),
    ({"parent_live_id": None}, {"parent_live_id": None}),
]
DIFFERS = [
    ({"context": "QUEUE"}, {"context": "IVR"}, "context: expected 'QUEUE', got 'IVR'"),
    ({"dst_id": "1000002"}, {"dst_id": 1000002}, "dst_id: expected '1000002', got 1000002"),
    ({"is_new": True}, {"is_new": 1}, "is_new: expected True, got 1"),
    ({"user_id": 7}, {}, "user_id: missing (expected 7)"),
    ({"billsec": {"min": 30}}, {"billsec": 12}, "billsec: expected at least 30, got 12"),
    ({"subject": {"contains": "fax"}}, {"subject": "voicemail"}, "subject: expected to contain 'fax', got 'voicemail'"),
    ({"attachments": [{"size": 2}]}, {"attachments": [{"size": 1}]}, "attachments[0].size: expected 2, got 1"),
    ({"attachments": []}, {"attachments": [{"size": 1}]}, "attachments: expected [], got [{'size': 1}]"),
]


@pytest.mark.parametrize(("expected", "record"), HOLDS)
def test_a_record_holding_every_expected_field_matches(expected, record):
    assert difference(expected, record) is None


@pytest.mark.parametrize(("expected", "record", "said"), DIFFERS)
def test_the_first_difference_is_said_in_words(expected, record, said):
    assert difference(expected, record) == said
