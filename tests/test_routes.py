"""The API surface: `telephony routes` equals the golden list, and covers the spec exactly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from telephony import wiring

HERE = Path(__file__).parent
SPEC = HERE.parents[1] / "shared" / "spec" / "api-spec.md"
GOLDEN = HERE / "golden" / "routes.txt"


def spec_routes() -> set[tuple[str, str]]:
    """Every method and path the spec's endpoint tables list (the /usergrouppolicies row is five)."""
    if not SPEC.exists():
        pytest.skip(f"the API contract is not beside this checkout ({SPEC})")
    found = set()
    for line in SPEC.read_text().splitlines():
        match = re.match(r"^\| (GET|POST|PATCH|DELETE|GET, POST[^|]*) \| (/[^ |]*)", line)
        if match is None:
            continue
        method, path = match.groups()
        if method.startswith("GET, POST"):
            found |= {("GET", path), ("POST", path), ("GET", path + "/{id}"), ("PATCH", path + "/{id}"),
                      ("DELETE", path + "/{id}")}  # fmt: skip
        else:
            found.add((method, path))
    return found


def listed(version: str, *, marked: bool) -> set[tuple[str, str]]:
    prefix = f"/{version}/voipstudio"
    out = set()
    for line in wiring.route_listing("voipstudio"):
        method, path, *mark = line.split()
        if path.startswith(prefix) and bool(mark) == marked:
            out.add((method, path.removeprefix(prefix)))
    return out


def test_the_route_listing_equals_the_golden_file():
    assert "\n".join(wiring.route_listing("voipstudio")) + "\n" == GOLDEN.read_text()


def test_every_spec_endpoint_is_served_on_both_versions_and_nothing_else_unmarked():
    expected = spec_routes()
    assert len(expected) == 162
    for version in ("v1.1", "v1.2"):
        assert listed(version, marked=False) == expected


def test_real_platform_additions_are_marked_and_are_not_in_the_spec():
    additions = listed("v1.2", marked=True)
    assert ("PATCH", "/queues/{id}") in additions and ("GET", "/apitokens") in additions
    assert not additions & spec_routes()
