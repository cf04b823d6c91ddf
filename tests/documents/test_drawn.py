"""A feed whose documents change shape (`drawn(version)`) changes the fingerprint of the tables it feeds,
so a data dir written before is rebuilt from its log at the next start and `verify` compares like with
like; an unmarked feed, or the same version, leaves the fingerprint as it was."""

from __future__ import annotations

from telephony.calls import records
from telephony.documents.projection import DocumentTable, drawn
from telephony.domain.events.calls import CallEnded


def fed(version: int | None = None) -> DocumentTable:
    def feed(event):
        return iter(())

    return DocumentTable("cdr", feeds={CallEnded: feed if version is None else drawn(version)(feed)})


def test_a_feed_drawing_a_new_shape_changes_the_fingerprint_of_the_tables_it_feeds():
    assert fed().fingerprint == fed().fingerprint and fed(2).fingerprint == fed(2).fingerprint
    assert len({fed().fingerprint, fed(2).fingerprint, fed(3).fingerprint}) == 3


def test_the_cdrs_are_drawn_with_who_hung_up():
    assert records.cdrs.drawn == records.missed.drawn == 2  # type: ignore[attr-defined]
