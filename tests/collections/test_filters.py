"""The collection engine as clients use it: every filter operator and alias, dates as dates, sorting,
grouping, includes, paging, and hostile input, which is always a 4xx naming the problem or a
correct result, never a 500.

The data is fixed for the module: contacts POSTed through the API, and CDR-like records (CDRs,
recordings, voicemessages, media session records) appended as events with known times.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
import pytest_asyncio

from telephony.collections import Kind
from telephony.registry.catalogue import BY_PATH, RESOURCES
from telephony.registry.resource import Op
from tests.registry.conftest import LOOP, VERSIONS, Caller, filter_of, fresh_number, ids_of, seed, seed_many

pytestmark = LOOP

CONTACTS = [  # first_name is the label
    {"first_name": "Ann", "last_name": "Smith", "company": "Acme Ltd", "tel": "+447700900001", "outcome_id": 1},
    {"first_name": "Bob", "last_name": "O'Brien", "company": "ACME Holdings", "tel": "+447700900002", "outcome_id": 2},
    {"first_name": "Carol", "last_name": "Jones", "company": "100% Pure_Water", "tel": "+12025550003", "outcome_id": 3},
    {"first_name": "Dave", "last_name": "smith", "company": "Initech", "tel": "+447700900004", "outcome_id": 10},
    {"first_name": "Eve", "last_name": "Adams", "company": "Globex", "tel": "+33123456789", "outcome_id": 2},
]
# label (the CDR's clid), calldate, duration, type, src, rate
CDRS = [
    ("jun30-late", "2026-06-30 23:59:59", 0, "M", "+441000", 0.0),
    ("jul01-first", "2026-07-01 00:00:00", 10, "O", "+441000", 0.05),
    ("jul01-noon", "2026-07-01 12:30:00", 10, "I", "+442000", 0.05),
    ("jul01-last", "2026-07-01 23:59:59", 60, "O", "+442000", 1.5),
    ("jul02-first", "2026-07-02 00:00:00", 125, "I", "+443000", 0.1),
    ("jul31-evening", "2026-07-31 18:00:00", 10, "O", "+441000", 0.05),
    ("aug01-first", "2026-08-01 00:00:00", 300, "M", "+444000", 2.0),
]
ALL_CDRS = [row[0] for row in CDRS]
ALL_CONTACTS = [c["first_name"] for c in CONTACTS]
# Other records with a time property: (path, time property, label property).
TIMED = [("cdrs", "calldate", "clid"), ("monitors", "timestamp", "caller"), ("voicemessages", "origtime", "caller"),
         ("msdrs", "created_at", "src")]  # fmt: skip
SCHEDULES = {"jun30": "2026-06-30", "jul01": "2026-07-01", "jul02": "2026-07-02"}  # name: start_at, a bare date
LABEL = {"contacts": "first_name", "reportschedules": "name", **{path: label for path, _, label in TIMED}}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def data(api, home) -> None:
    """The module's records, all of `home`'s customer."""
    for contact in CONTACTS:
        await api.ok("POST", "/contacts", home, status=201, json=contact)
    for label, calldate, duration, type_, src, rate in CDRS:
        await seed(api, BY_PATH["cdrs"], home.customer_id, clid=label, calldate=calldate, duration=duration,
                   type=type_, src=src, rate=rate, dst="+447700900123", disposition="CONNECTED")  # fmt: skip
    for name, start in SCHEDULES.items():
        body = {"report_id": 1, "name": name, "emails": ["boss@example.com"], "frequency": {"type": "daily"},
                "start_at": start}  # fmt: skip
        await api.ok("POST", "/reportschedules", home, status=201, json=body)
    for path, time_prop, label_prop in TIMED[1:]:
        for label, when, *_ in CDRS:
            await seed(api, BY_PATH[path], home.customer_id, **{time_prop: when, label_prop: label})


async def listed(
    api, caller: Caller, path: str, *conditions: tuple[str, str, Any], version: str = "v1.2", **params: Any
) -> list[str]:
    """The labels of the records a filtered list shows, checking `total` counts them all."""
    query = {"limit": 5000, **params}
    if conditions:
        query["filter"] = filter_of(*conditions)
    body = await api.ok("GET", f"/{path}", caller, version=version, params=query)
    assert body["total"] == len(body["data"])
    return [row[LABEL[path]] for row in body["data"]]


def but(everything: list[str], *excluded: str) -> list[str]:
    return [label for label in everything if label not in excluded]


# --- operators and their aliases -----------------------------------------------------------------

TEN = ["jul01-first", "jul01-noon", "jul31-evening"]
UNDER_60 = ["jun30-late", *TEN]
OVER_60 = ["jul02-first", "aug01-first"]
ALIASES = {
    "eq": ["eq", "="],
    "ne": ["ne", "neq", "<>", "!="],
    "lt": ["lt", "<"],
    "lte": ["lte", "<="],
    "gt": ["gt", ">"],
    "gte": ["gte", ">="],
}
OPERATOR_CASES = [  # operator, value on duration, expected
    ("eq", 10, TEN),
    ("ne", 10, but(ALL_CDRS, *TEN)),
    ("lt", 60, UNDER_60),
    ("lte", 60, [*UNDER_60, "jul01-last"]),
    ("gt", 60, OVER_60),
    ("gte", 60, ["jul01-last", *OVER_60]),
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    ("operator", "value", "expected"),
    [pytest.param(alias, v, e, id=alias) for op, v, e in OPERATOR_CASES for alias in ALIASES[op]],
)
async def test_each_comparison_operator_and_alias_filters_a_number(api, home, data, operator, value, expected, version):
    assert sorted(await listed(api, home, "cdrs", ("duration", operator, value), version=version)) == sorted(expected)


@pytest.mark.parametrize("version", VERSIONS)
async def test_in_takes_an_array_of_values(api, home, data, version):
    in_two = await listed(api, home, "cdrs", ("duration", "in", [0, 300]), version=version)
    assert sorted(in_two) == ["aug01-first", "jun30-late"]
    assert await listed(api, home, "cdrs", ("duration", "in", []), version=version) == []


@pytest.mark.parametrize(
    ("prop", "operator", "value", "expected"),
    [
        pytest.param("company", "like", "acme", ["Ann", "Bob"], id="like without % is a case-insensitive substring"),
        pytest.param("company", "like", "LTD", ["Ann"], id="like matches any case"),
        pytest.param("company", "like", "acme%", ["Ann", "Bob"], id="like with % is a pattern: prefix"),
        pytest.param("company", "like", "%ltd", ["Ann"], id="like with % is a pattern: suffix"),
        pytest.param("company", "like", "ac_e ltd", ["Ann"], id="like with _ matches one character"),
        pytest.param("company", "like", "%", ALL_CONTACTS, id="like % matches everything"),
        pytest.param("company", "like", "100%", ["Carol"], id="like with a literal percent sign"),
        pytest.param("company", "notlike", "acme", ["Carol", "Dave", "Eve"], id="notlike without %"),
        pytest.param("company", "notlike", "%o%", ["Ann", "Carol", "Dave"], id="notlike with %"),
        pytest.param("last_name", "notlike", "SMITH", ["Bob", "Carol", "Eve"], id="notlike any case"),
        pytest.param("tel", "like", "7700900", ["Ann", "Bob", "Dave"], id="like is a partial match on a number"),
        pytest.param("tel", "like", "+44%", ["Ann", "Bob", "Dave"], id="like a number prefix"),
        pytest.param("outcome_id", "like", "1", ["Ann", "Dave"], id="like on a numeric property matches its digits"),
    ],
)
async def test_like_and_notlike_match_substrings_or_patterns_in_any_case(
    api, home, data, prop, operator, value, expected
):
    assert await listed(api, home, "contacts", (prop, operator, value)) == expected


UNICODE_NAMES = ["Élodie", "ÉLODIE DURAND", "élodie", "Ωmega", "ΩMEGA", "Москва", "plain"]


@pytest.mark.parametrize(
    ("operator", "value", "expected"),
    [
        pytest.param("like", "élodie", ["Élodie", "ÉLODIE DURAND", "élodie"], id="a substring in any case"),
        pytest.param("like", "ÉLO%", ["Élodie", "ÉLODIE DURAND", "élodie"], id="a pattern in any case"),
        pytest.param("like", "_lodie%", ["Élodie", "ÉLODIE DURAND", "élodie"], id="an ASCII pattern meets any letter"),
        pytest.param("like", "ωMEGA", ["Ωmega", "ΩMEGA"], id="Greek"),
        pytest.param("like", "москва", ["Москва"], id="Cyrillic"),
        pytest.param("notlike", "ÉLODIE", ["Ωmega", "ΩMEGA", "Москва", "plain"], id="notlike in any case"),
    ],
)
async def test_like_and_notlike_ignore_case_in_any_alphabet(api, other, operator, value, expected):
    mine = {(await api.ok("POST", "/contacts", other, status=201, json={"first_name": n}))["data"]["id"]: n
            for n in UNICODE_NAMES}  # fmt: skip
    rows = await api.rows("/contacts", other, filter=filter_of(("first_name", operator, value)))
    assert [row["first_name"] for row in rows if row["id"] in mine] == expected


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        pytest.param(("duration", "eq", "10"), TEN, id="'10' equals 10"),
        pytest.param(("duration", "gt", "60"), OVER_60, id="'60' compares as 60, not as text"),
        pytest.param(("duration", "in", ["0", "300"]), ["jun30-late", "aug01-first"], id="in with numeric strings"),
        pytest.param(("rate", "eq", "0.05"), TEN, id="'0.05' equals 0.05"),
        pytest.param(("rate", "gte", 1), ["jul01-last", "aug01-first"], id="an integer bound on a decimal"),
        pytest.param(("duration", "eq", 10.0), TEN, id="10.0 equals 10"),
    ],
)
async def test_a_value_is_read_as_the_propertys_type(api, home, data, condition, expected):
    assert sorted(await listed(api, home, "cdrs", condition)) == sorted(expected)


async def test_a_number_property_compares_as_a_number_on_contacts_too(api, home, data):
    assert await listed(api, home, "contacts", ("outcome_id", "gt", "2")) == ["Carol", "Dave"]
    assert await listed(api, home, "contacts", ("outcome_id", "=", "10")) == ["Dave"]


async def test_several_conditions_are_all_required(api, home, data):
    conditions = [("type", "eq", "O"), ("duration", "gte", 10), ("calldate", "lte", "2026-07-01")]
    assert await listed(api, home, "cdrs", *conditions) == ["jul01-first", "jul01-last"]
    assert await listed(api, home, "contacts", ("company", "like", "acme"), ("last_name", "eq", "Smith")) == ["Ann"]


async def test_quotes_in_a_value_are_matched_literally(api, home, data):
    assert await listed(api, home, "contacts", ("last_name", "eq", "O'Brien")) == ["Bob"]
    assert await listed(api, home, "contacts", ("last_name", "like", "'")) == ["Bob"]
    assert await listed(api, home, "contacts", ("last_name", "eq", 'O"Brien')) == []


async def test_a_null_value_matches_records_without_the_property(api, home, data):
    assert await listed(api, home, "contacts", ("notes", "eq", None)) == ALL_CONTACTS
    assert await listed(api, home, "contacts", ("notes", "ne", None)) == []


# --- dates and times -----------------------------------------------------------------------------

JULY_1 = ["jul01-first", "jul01-noon", "jul01-last"]
DATE_CASES = [
    pytest.param("lte", "2026-07-01", ["jun30-late", *JULY_1], id="lte a date covers that whole day"),
    pytest.param("<=", "2026-07-01", ["jun30-late", *JULY_1], id="<= a date covers that whole day"),
    pytest.param("lt", "2026-07-01", ["jun30-late"], id="lt a date means before its first second"),
    pytest.param("gt", "2026-07-01", but(ALL_CDRS, "jun30-late", "jul01-first"),
                 id="gt a date means after its first second"),
    pytest.param("gte", "2026-07-01", but(ALL_CDRS, "jun30-late"), id="gte a date means from its first second"),
    pytest.param("eq", "2026-07-01", JULY_1, id="eq a date is that day"),
    pytest.param("ne", "2026-07-01", but(ALL_CDRS, *JULY_1), id="ne a date is any other day"),
    pytest.param("eq", "2026-07-01 12:30:00", ["jul01-noon"], id="eq a time is that second"),
    pytest.param("gt", "2026-07-01 12:30:00", but(ALL_CDRS, "jun30-late", "jul01-first", "jul01-noon"), id="gt a time"),
    pytest.param("lte", "2026-07-01 00:00:00", ["jun30-late", "jul01-first"], id="lte a time is not the whole day"),
    pytest.param("in", ["2026-07-01 00:00:00", "2026-08-01 00:00:00"], ["jul01-first", "aug01-first"], id="in times"),
    pytest.param("in", ["2026-07-01"], JULY_1, id="in a date is that whole day, as eq"),
    pytest.param("in", ["2026-07-01", "2026-08-01 00:00:00", "2026-07-31"], [*JULY_1, "jul31-evening", "aug01-first"],
                 id="in dates and times"),
    pytest.param("like", "2026-07-01", JULY_1, id="like a date prefix"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "prop", "label"), [pytest.param(*t, id=f"{t[0]}.{t[1]}") for t in TIMED])
@pytest.mark.parametrize(("operator", "value", "expected"), DATE_CASES)
async def test_times_compare_as_times_and_take_a_bare_date(
    api, home, data, path, prop, label, operator, value, expected
):
    assert sorted(await listed(api, home, path, (prop, operator, value))) == sorted(expected)


KEPT_BY_THE_PLATFORM = {("reportschedules", "next_run_at")}
"""Time properties the platform sets itself after a record is made (a schedule's planner keeps its
next run), so a value a test stores may be replaced at any moment."""


def time_properties() -> list:
    return [pytest.param(r, prop, id=f"{r.path}.{prop}") for r in RESOURCES if Op.LIST in r.all_ops
            for prop, kind in r.props.items() if kind is Kind.TIME
            and (r.path, prop) not in KEPT_BY_THE_PLATFORM]  # fmt: skip


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def apart(api) -> Caller:
    """A customer of its own, whose records no other test of the module lists."""
    return await api.new_customer("apart")


@pytest.mark.parametrize(("resource", "prop"), time_properties())
async def test_in_a_bare_date_is_that_whole_day_on_every_time_property(api, resource, prop):
    apart = await api.new_customer(f"apart-{resource.kind}-{prop.replace('_', '-')}")  # records of its own only
    times = {"before": "2031-03-03 23:59:59", "first": "2031-03-04 00:00:00", "noon": "2031-03-04 12:00:00",
             "last": "2031-03-04 23:59:59", "after": "2031-03-05 00:00:00", "exact": "2031-03-06 08:00:00"}  # fmt: skip
    extra = lambda: {"e164": fresh_number()} if resource.text_ids else {}  # noqa: E731
    rows = await seed_many(api, resource, apart.customer_id, [{prop: when, **extra()} for when in times.values()])
    ids = dict(zip(times, ids_of(rows), strict=True))
    condition = (prop, "in", ["2031-03-04", "2031-03-06 08:00:00"])
    found = await api.rows(f"/{resource.path}", apart, filter=filter_of(condition))
    assert sorted(ids_of(found)) == sorted(ids[k] for k in ("first", "noon", "last", "exact"))


async def test_a_text_property_named_like_a_time_is_text(api, home, data):
    users = await api.ok("GET", "/users", home, params={"filter": filter_of(("ring_time", "eq", "20"))})
    assert users["total"] >= 1 and all(user["ring_time"] == "20" for user in users["data"])


async def test_a_date_range_selects_a_month_as_from_and_to_do(api, home, data):
    conditions = [("calldate", "gte", "2026-07-01"), ("calldate", "lte", "2026-07-31")]
    assert await listed(api, home, "cdrs", *conditions) == [*JULY_1, "jul02-first", "jul31-evening"]


@pytest.mark.parametrize(
    ("operator", "day", "expected"),
    [
        pytest.param("eq", "2026-07-01", ["jul01"], id="eq its day"),
        pytest.param("ne", "2026-07-01", ["jun30", "jul02"], id="ne its day"),
        pytest.param("gte", "2026-07-01", ["jul01", "jul02"], id="gte its day"),
        pytest.param("lt", "2026-07-01", ["jun30"], id="lt its day excludes it"),
        pytest.param("lte", "2026-07-01", ["jun30", "jul01"], id="lte its day"),
        pytest.param("gt", "2026-07-01", ["jul02"], id="gt its day excludes it"),
    ],
)
async def test_a_property_holding_a_bare_date_compares_as_that_day(api, home, data, operator, day, expected):
    assert await listed(api, home, "reportschedules", ("start_at", operator, day)) == expected


# --- sorting and grouping ------------------------------------------------------------------------


def by_duration(descending: bool = False) -> list[str]:
    """CDR labels ordered by duration, ties by creation order (their ids), reversed for descending."""
    ordered = [row[0] for row in sorted(CDRS, key=lambda row: (row[2], CDRS.index(row)))]
    return ordered[::-1] if descending else ordered


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        pytest.param({}, ALL_CDRS, id="without sort the order is by id"),
        pytest.param({"sort": "duration"}, by_duration(), id="sort ascends by default"),
        pytest.param({"sort": "duration", "dir": "ASC"}, by_duration(), id="dir ASC"),
        pytest.param({"sort": "duration", "dir": "DESC"}, by_duration(descending=True), id="dir DESC"),
        pytest.param({"sort": "duration", "dir": "desc"}, by_duration(descending=True), id="dir in lower case"),
        pytest.param({"sort": "-duration"}, by_duration(descending=True), id="a leading minus descends"),
        pytest.param({"sort": "calldate", "dir": "DESC"}, ALL_CDRS[::-1], id="sort by a time"),
        pytest.param({"sort": "clid"}, sorted(ALL_CDRS), id="sort by text"),
        pytest.param({"dir": "DESC"}, ALL_CDRS[::-1], id="dir alone orders by id"),
    ],
)
async def test_sort_and_dir_order_the_list_and_ties_are_broken_by_id(api, home, data, params, expected):
    assert await listed(api, home, "cdrs", **params) == expected


async def test_sorting_by_an_unknown_property_is_a_400_naming_it(api, home, data):
    reply = await api.call("GET", "/cdrs", home, params={"sort": "nope"})
    assert reply.field_error() == "sort" and "nope" in reply.body["message"]
    assert (await api.call("GET", "/cdrs", home, params={"sort": "duration", "dir": "sideways"})).field_error() == "dir"


async def test_group_by_answers_one_record_per_value_and_counts_the_groups(api, home, data):
    body = await api.ok("GET", "/cdrs", home, params={"group_by": "src", "limit": 5000})
    assert sorted(row["src"] for row in body["data"]) == ["+441000", "+442000", "+443000", "+444000"]
    assert body["total"] == 4
    filtered = await api.ok("GET", "/cdrs", home, params={"group_by": "src", "filter": filter_of(("type", "eq", "O"))})
    assert sorted(row["src"] for row in filtered["data"]) == ["+441000", "+442000"] and filtered["total"] == 2
    paged = await api.ok("GET", "/cdrs", home, params={"group_by": "src", "limit": 1, "page": 2})
    assert len(paged["data"]) == 1 and paged["total"] == 4


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
async def test_group_by_with_a_sort_shows_each_group_s_first_record_ordered_by_its_value(api, home, data, direction):
    everything = (await api.ok("GET", "/cdrs", home, params={"limit": 5000}))["data"]
    firsts: dict[str, dict] = {}
    for row in sorted(everything, key=lambda row: row["id"]):
        firsts.setdefault(row["src"], row)
    expected = sorted(firsts.values(), key=lambda row: (row["duration"], row["id"]), reverse=direction == "DESC")
    params = {"group_by": "src", "sort": "duration", "dir": direction, "limit": 5000}
    body = await api.ok("GET", "/cdrs", home, params=params)
    assert [row["id"] for row in body["data"]] == [row["id"] for row in expected] and body["total"] == len(firsts)


async def test_group_by_an_unknown_property_is_a_400_naming_it(api, home, data):
    assert (await api.call("GET", "/cdrs", home, params={"group_by": "nope"})).field_error() == "group_by"


# --- paging ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 2, 3, 7, 8])
@pytest.mark.parametrize(
    "sort", [{}, {"sort": "duration"}, {"sort": "-type"}], ids=["by id", "by duration", "by -type"]
)
async def test_a_page_walk_returns_every_row_exactly_once_and_the_same_total(api, home, data, limit, sort):
    expected = await listed(api, home, "cdrs", **sort)
    walked, totals = [], set()
    for page in itertools.count(1):
        body = await api.ok("GET", "/cdrs", home, params={"page": page, "limit": limit, **sort})
        totals.add(body["total"])
        walked += [row["clid"] for row in body["data"]]
        if len(walked) >= body["total"]:
            break
    assert walked == expected and totals == {len(CDRS)}


async def test_a_page_past_the_end_is_empty_with_the_true_total(api, home, data):
    assert await api.ok("GET", "/cdrs", home, params={"page": 5, "limit": 3}) == {"data": [], "total": len(CDRS)}
    query = {"page": 3, "limit": 2, "filter": filter_of(("duration", "eq", 10))}
    assert await api.ok("GET", "/cdrs", home, params=query) == {"data": [], "total": 3}


async def test_a_filtered_page_counts_every_match(api, home, data):
    body = await api.ok("GET", "/cdrs", home, params={"limit": 2, "filter": filter_of(("duration", "eq", 10))})
    assert len(body["data"]) == 2 and body["total"] == 3


@pytest.mark.parametrize("limit", ["5000", "5001", "10000", "99999999999"])
async def test_a_limit_above_the_maximum_is_served_not_refused(api, home, data, limit):
    body = await api.ok("GET", "/cdrs", home, params={"limit": limit})
    assert len(body["data"]) == body["total"] == len(CDRS)


async def test_a_limit_above_5000_is_served_as_5000(api):
    crowd = await api.new_customer("crowd")
    await seed_many(api, BY_PATH["faxes"], crowd.customer_id, [{"pages": n} for n in range(5001)])
    body = await api.ok("GET", "/faxes", crowd, params={"limit": 10000})
    assert (len(body["data"]), body["total"]) == (5000, 5001)
    last = await api.ok("GET", "/faxes", crowd, params={"limit": 10000, "page": 2})
    assert [row["pages"] for row in last["data"]] == [5000]


@pytest.mark.parametrize("param", ["page", "limit"])
@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5", "1e3", "0x10"])
async def test_a_page_or_limit_that_is_not_a_positive_integer_is_a_400_naming_it(api, home, data, param, value):
    reply = await api.call("GET", "/cdrs", home, params={param: value})
    assert reply.field_error() == param


@pytest.mark.parametrize("version", VERSIONS)
async def test_an_empty_filter_array_means_no_condition(api, home, data, version):
    everything = await api.ok("GET", "/contacts", home, version=version)
    for empty in ("[]", "", " "):
        assert await api.ok("GET", "/contacts", home, version=version, params={"filter": empty}) == everything
    assert everything["total"] == len(CONTACTS)


@pytest.mark.parametrize("version", VERSIONS)
async def test_a_get_may_carry_a_json_content_type_and_an_empty_body(api, home, data, version):
    reply = await api.call("GET", "/contacts", home, version=version, data=b"",
                           headers={"Content-Type": "application/json"})  # fmt: skip
    assert reply.status == 200 and reply.body["total"] == len(CONTACTS)
    assert (await api.call("GET", "/cdrs/1", home, version=version, data=b"",
                           headers={"Content-Type": "application/json"})).status == 200  # fmt: skip


async def test_sparse_fieldsets_are_accepted(api, home, data):
    reply = await api.call("GET", "/contacts", home, params={"fields[contacts]": "id,first_name"})
    assert reply.status == 200 and reply.body["total"] == len(CONTACTS)


# --- includes --------------------------------------------------------------------------------------


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agents(api, home) -> list[dict]:
    """Two users of `home`'s customer, to be queue and ring group members."""
    return [
        await api.new_user(home.customer_id, f"{first.lower()}@example.com", first_name=first, last_name=last)
        for first, last in (("Alice", "Agent"), ("Bert", "Bridge"))
    ]


def member(user: dict, **extra: Any) -> dict:
    return {"id": user["id"], "first_name": user["first_name"], "last_name": user["last_name"], **extra}


async def test_queue_members_are_ids_and_include_users_embeds_them_with_their_status(api, home, agents):
    alice, bert = agents
    body = {"name": "Sales", "users": [{"id": alice["id"]}, {"id": bert["id"], "status": False}]}
    queue = (await api.ok("POST", "/queues", home, status=201, json=body))["data"]
    assert queue["users"] == [alice["id"], bert["id"]]
    embedded = [member(alice, status=True), member(bert, status=False)]
    listed_queues = await api.ok("GET", "/queues", home, params={"include": "users", "limit": 5000})
    assert next(q for q in listed_queues["data"] if q["id"] == queue["id"])["users"] == embedded
    one = await api.ok("GET", f"/queues/{queue['id']}", home, params={"include": "users"})
    assert one["data"]["users"] == embedded
    assert (await api.ok("GET", f"/queues/{queue['id']}", home))["data"]["users"] == [alice["id"], bert["id"]]


async def test_patching_queue_members_sets_membership_and_login_and_honours_include(api, home, agents):
    alice, bert = agents
    queue = (await api.ok("POST", "/queues", home, status=201, json={"name": "Support"}))["data"]
    patch = {"users": [{"id": bert["id"], "status": True}, {"id": alice["id"], "status": False}]}
    body = await api.ok("PATCH", f"/queues/{queue['id']}", home, params={"include": "users"}, json=patch)
    assert body["data"]["users"] == [member(bert, status=True), member(alice, status=False)]
    assert body["data"]["name"] == "Support"


async def test_ring_groups_include_their_numbers_and_users(api, home, agents):
    alice, _ = agents
    number = await seed(api, BY_PATH["ddis"], home.customer_id, e164="+442071234567", name="Main line")
    body = {"name": "Front desk", "users": [alice["id"]], "ddis": [number["e164"]]}
    group = (await api.ok("POST", "/ringgroups", home, status=201, json=body))["data"]
    assert (group["users"], group["ddis"]) == ([alice["id"]], [number["e164"]])
    rows = (await api.ok("GET", "/ringgroups", home, params={"include": "ddis,users", "limit": 5000}))["data"]
    shown = next(row for row in rows if row["id"] == group["id"])
    assert shown["users"] == [member(alice)]
    assert shown["ddis"] == [{**number, "target_type": 3, "target_id": group["id"]}]  # the number is the group's
    only_users = await api.ok("GET", f"/ringgroups/{group['id']}", home, params={"include": "users"})
    assert only_users["data"]["ddis"] == [number["e164"]] and only_users["data"]["users"] == [member(alice)]


@pytest.mark.parametrize("path", ["/queues", "/ringgroups"])
async def test_an_unknown_include_is_a_400_naming_it(api, home, path):
    reply = await api.call("GET", path, home, params={"include": "users,secrets"})
    assert reply.field_error() == "include" and "secrets" in reply.body["message"]


# --- hostile input --------------------------------------------------------------------------------

NESTED = "[" * 1000 + "]" * 1000
REFUSED = [  # raw filter, a word the message must contain
    pytest.param(json.dumps([{"property": "first_name') OR ('1'='1", "value": "x"}]), "first_name') OR",
                 id="injection in a property"),
    pytest.param(filter_of(("no_such_property", "eq", 1)), "no_such_property", id="unknown property"),
    pytest.param(filter_of(("customer_id", "eq", 1)), "customer_id", id="a property the resource does not have"),
    pytest.param(filter_of(("outcome_id", "between", [1, 3])), "between", id="unknown operator between"),
    pytest.param(filter_of(("outcome_id", "eq; DROP TABLE doc_contact", 1)), "DROP TABLE",
                 id="injection in an operator"),
    pytest.param('[{"property": "first_name", "operator": "eq", "value": ', "filter", id="malformed JSON"),
    pytest.param(NESTED, "filter", id="deeply nested arrays"),
    pytest.param('[{"property": "first_name", "operator": "eq", "value": ' + NESTED + "}]", "nested",
                 id="deeply nested value"),
    pytest.param('{"property": "first_name", "value": "Ann"}', "filter", id="an object instead of an array"),
    pytest.param('"first_name"', "filter", id="a string instead of an array"),
    pytest.param("[1]", "filter", id="an array of numbers"),
    pytest.param("[{}]", "property", id="a condition without property"),
    pytest.param('[{"property": null}]', "filter", id="a null property"),
    pytest.param("null", "filter", id="null"),
    pytest.param(filter_of(("outcome_id", "eq", "abc")), "outcome_id", id="text for a number"),
    pytest.param(filter_of(("outcome_id", "eq", True)), "outcome_id", id="a boolean for a number"),
    pytest.param(filter_of(("outcome_id", "eq", 1.5)), "outcome_id", id="a fraction for an integer"),
    pytest.param(filter_of(("outcome_id", "eq", [1])), "outcome_id", id="an array for eq"),
    pytest.param(filter_of(("outcome_id", "eq", {"a": 1})), "outcome_id", id="an object for eq"),
    pytest.param('[{"property": "outcome_id", "operator": "eq", "value": 1e400}]', "out of range",
                 id="an infinite number"),
    pytest.param('[{"property": "outcome_id", "value": 1}]', "operator", id="a condition without operator"),
    pytest.param('[{"property": "outcome_id", "operator": null, "value": 1}]', "operator", id="a null operator"),
    pytest.param(filter_of(("outcome_id", "eq", 10**30)), "outcome_id", id="a number too large to store"),
    pytest.param(filter_of(("outcome_id", "in", [10**30])), "outcome_id", id="a number too large in an array"),
    pytest.param(filter_of(("created_at", "gt", "yesterday")), "created_at", id="text for a time"),
    pytest.param(filter_of(("created_at", "lte", "2026-02-30")), "created_at", id="a date that does not exist"),
    pytest.param(filter_of(("global", "eq", "maybe")), "global", id="text for a boolean"),
    pytest.param(filter_of(("outcome_id", "in", "1,2")), "in", id="in without an array"),
    pytest.param(filter_of(("outcome_id", "in", [0] * 1001)), "1000", id="a huge array for in"),
    pytest.param(filter_of(("company", "like", {"a": 1})), "company", id="an object for like"),
    pytest.param(filter_of(("labels", "eq", "vip")), "labels", id="a value for a list property"),
    pytest.param(filter_of(("labels", "in", ["vip", None])), "labels", id="values in in for a list property"),
    pytest.param(filter_of(("groups", "like", "vip")), "groups", id="like on a list property"),
    pytest.param(filter_of(*[("outcome_id", "gt", 0)] * 51), "50", id="too many conditions"),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "named"), REFUSED)
async def test_hostile_filters_are_a_400_naming_the_problem(api, home, data, raw, named):
    reply = await api.call("GET", "/contacts", home, params={"filter": raw})
    body = reply.error(400)
    assert body["errors"][0]["field"] == "filter"
    assert named in body["message"] and named in body["errors"][0]["message"]


ANSWERED = [  # a condition, the contacts it must match
    pytest.param(("last_name", "eq", "1; DROP TABLE doc_contact; --"), [], id="SQL in a value"),
    pytest.param(("last_name", "like", "%' OR '1'='1"), [], id="SQL in a like pattern"),
    pytest.param(("last_name", "eq", "Smith\x00"), [], id="a NUL character"),
    pytest.param(("last_name", "ne", "Smith\x00"), ALL_CONTACTS, id="a NUL character for ne"),
    pytest.param(("last_name", "in", ["Smith\x00", "Jones"]), ["Carol"], id="a NUL character in in"),
    pytest.param(("last_name", "gt", "Jones\x00"), ["Ann", "Bob", "Dave"], id="a NUL character sorting after"),
    pytest.param(("last_name", "like", "%ith\x00x"), ["Ann", "Dave"], id="a like pattern read up to a NUL"),
    pytest.param(("last_name", "notlike", "%ith\x00x"), ["Bob", "Carol", "Eve"], id="notlike up to a NUL"),
    pytest.param(("last_name", "eq", "x" * 3000), [], id="a long value"),
    pytest.param(("last_name", "like", "\\"), [], id="a backslash"),
    pytest.param(("outcome_id", "in", [2] * 1000), ["Bob", "Eve"], id="the largest array for in"),
    pytest.param(("first_name", "EQ", "Ann"), ["Ann"], id="an operator in capitals"),
    pytest.param(("first_name", "eq", 12), [], id="a number for text"),
    pytest.param(("global", "eq", "true"), [], id="a boolean as text"),
]


@pytest.mark.parametrize(("condition", "expected"), ANSWERED)
async def test_odd_but_valid_filters_answer_the_correct_records(api, home, data, condition, expected):
    assert await listed(api, home, "contacts", condition) == expected
    assert await listed(api, home, "contacts") == ALL_CONTACTS


async def test_a_filter_on_the_owner_cannot_reach_another_customers_records(api, home, other, data):
    theirs = await seed(api, BY_PATH["chats"], other.customer_id, visitor_name="theirs")
    mine = await seed(api, BY_PATH["chats"], home.customer_id, visitor_name="mine")
    for condition in [("customer_id", "eq", other.customer_id), ("id", "eq", theirs["id"])]:
        assert await api.ok("GET", "/chats", home, params={"filter": filter_of(condition)}) == {"data": [], "total": 0}
    rows = await api.ok("GET", "/chats", home, params={"filter": filter_of(("customer_id", "ne", 0))})
    assert ids_of(rows["data"]) == [mine["id"]]


@pytest.mark.parametrize(
    ("param", "value"),
    [("sort", "duration; DROP TABLE doc_cdr"), ("sort", "-(select 1)"), ("group_by", "src) --"), ("dir", "ASC; --")],
)
async def test_hostile_sort_and_group_by_are_a_400_naming_the_parameter(api, home, data, param, value):
    assert (await api.call("GET", "/cdrs", home, params={param: value})).field_error() == param
    assert len(await listed(api, home, "cdrs")) == len(CDRS)


@pytest.mark.parametrize("sort", ["labels", "-groups"])
async def test_a_list_property_compares_with_null_only_and_orders_no_list(api, home, data, sort):
    """A list's (or an object's) text is each store's own, so neither its value nor its order is a
    list's meaning: `eq`/`ne` null (has none, has some) are, and a sort by it is a 400 naming it."""
    assert (await api.call("GET", "/contacts", home, params={"sort": sort})).field_error() == "sort"
    none, some = [await listed(api, home, "contacts", ("labels", op, None)) for op in ("eq", "ne")]
    assert sorted(none + some) == sorted(ALL_CONTACTS)


FUZZ_VALUES = [0, -1, 10, 2**63, -(2**63) - 1, 1.5, 1e300, "10", "abc", "", "%", "_", "'", '"', "2026-07-01",
               "2026-07-01 12:00:00", "1; DROP TABLE doc_cdr; --", True, None, [], [1, "a"], [[1]],
               {"a": [1]}]  # fmt: skip
FUZZ_OPERATORS = ["eq", "=", "ne", "neq", "<>", "!=", "lt", "<", "lte", "<=", "gt", ">", "gte", ">=", "in", "like",
                  "notlike", "between", "", None, 1, "IS"]  # fmt: skip


@pytest.mark.parametrize("prop", ["duration", "rate", "clid", "calldate", "live_id"])
async def test_no_combination_of_operator_and_value_is_a_server_error(api, home, data, prop):
    for operator, value in itertools.product(FUZZ_OPERATORS, FUZZ_VALUES):
        raw = json.dumps([{"property": prop, "operator": operator, "value": value}])
        reply = await api.call("GET", "/cdrs", home, params={"filter": raw})
        assert reply.status in (200, 400), (operator, value, reply)
        if reply.status == 400:
            reply.error(400)
