"""The rules of SIP clients: given these registrations, when this command, then these events (or this refusal)."""

from __future__ import annotations

import pytest

from telephony import config
from telephony.domain import sip_clients as sip
from telephony.domain.errors import Invalid, Unknown
from telephony.domain.events.base import data_of

from .given import shapes, typed

CUSTOMER, USER = 100001, 1000001
AT = "2026-07-01 12:00:00"
STREAM = f"sip-{USER}"


def registered(rid: int, locations: int, agent: str = "phone/1", contact: str = "sip:a@192.0.2.1") -> tuple[str, dict]:
    return "sip.registered", {"user_id": USER, "customer_id": CUSTOMER, "registration_id": rid, "user_agent": agent,
                                "contact": contact, "registered_at": AT, "locations": locations}  # fmt: skip


def unregistered(rid: int, locations: int) -> tuple[str, dict]:
    return "sip.unregistered", {"user_id": USER, "customer_id": CUSTOMER, "registration_id": rid,
                                  "locations": locations}  # fmt: skip


def given(*events: tuple[str, dict], live: bool = True) -> sip.SipClients:
    return sip.folded(USER, CUSTOMER, live, [typed(*e) for e in events])


def test_a_first_client_registers_with_id_1_on_a_new_stream_and_one_location():
    state = given()
    (fact,) = sip.register(state, state.next_id, "phone/1", "sip:a@192.0.2.1", AT)
    assert shapes([fact]) == [(STREAM, "sip.registered", 0)]
    assert data_of(fact.event) == registered(1, 1)[1]


def test_a_further_client_counts_the_locations_after_it_and_guards_the_stream_version():
    state = given(registered(1, 1), registered(2, 2), unregistered(1, 1))
    assert state.next_id == 3
    (fact,) = sip.register(state, state.next_id, "desk/2", "sips:b@192.0.2.2", AT)
    assert (fact.expected_version, fact.event.registration_id, fact.event.locations) == (3, 3, 2)  # type: ignore[attr-defined]


def test_an_id_once_used_is_never_registered_again_even_after_it_was_unregistered():
    state = given(registered(1, 1), unregistered(1, 0))
    with pytest.raises(Invalid):
        sip.register(state, 1, "phone/1", "sip:a@192.0.2.1", AT)


def test_a_user_has_at_most_the_registrars_limit_of_clients():
    state = given(*(registered(n, n) for n in range(1, sip.MAX_REGISTRATIONS + 1)))
    with pytest.raises(Invalid, match="the most a user may have"):
        sip.register(state, state.next_id, "phone/1", "sip:a@192.0.2.1", AT)


def test_the_configured_default_is_bounded_by_the_same_limit():
    assert config.MAX_REGISTRATIONS == sip.MAX_REGISTRATIONS
    assert config.Simulator(default_registrations=sip.MAX_REGISTRATIONS).default_registrations == sip.MAX_REGISTRATIONS
    with pytest.raises(ValueError, match="default_registrations"):
        config.Simulator(default_registrations=sip.MAX_REGISTRATIONS + 1)


def test_default_clients_register_one_after_another_as_simulated_softphones():
    facts = sip.register_defaults(given(registered(1, 1)), 2, AT)
    added = [(f.expected_version, data_of(f.event)) for f in facts]
    assert [(version, d["registration_id"], d["locations"]) for version, d in added] == [(1, 2, 2), (2, 3, 3)]
    assert {d["user_agent"] for _, d in added} == {sip.DEFAULT_USER_AGENT}
    assert [d["contact"] for _, d in added] == [f"sip:{USER}@198.51.100.2:5060;transport=udp",
                                                  f"sip:{USER}@198.51.100.3:5060;transport=udp"]  # fmt: skip
    assert sip.register_defaults(given(), 0, AT) == []


def test_default_contacts_stay_within_the_test_network():
    assert sip.default_contact(USER, 254).startswith(f"sip:{USER}@198.51.100.254:")
    assert sip.default_contact(USER, 255).startswith(f"sip:{USER}@198.51.100.1:")


def test_unregistering_leaves_the_count_of_the_others():
    (fact,) = sip.unregister(given(registered(1, 1), registered(2, 2)), 1)
    assert shapes([fact]) == [(STREAM, "sip.unregistered", 2)]
    assert data_of(fact.event) == unregistered(1, 1)[1]


def test_unregistering_an_unknown_or_gone_registration_is_unknown():
    with pytest.raises(Unknown, match=f"Registration 2 of user {USER} not found"):
        sip.unregister(given(registered(1, 1)), 2)
    with pytest.raises(Unknown):
        sip.unregister(given(registered(1, 1), unregistered(1, 0)), 1)


def test_a_user_that_is_not_live_has_no_clients_to_change():
    state = given(registered(1, 1), live=False)
    with pytest.raises(Unknown, match=f"User {USER} not found"):
        sip.register(state, state.next_id, "phone/1", "sip:a@192.0.2.1", AT)
    with pytest.raises(Unknown, match=f"User {USER} not found"):
        sip.unregister(state, 1)


def test_the_fold_keeps_registrations_in_registration_order():
    state = given(registered(1, 1, "a/1"), registered(2, 2, "b/1"), registered(3, 3, "c/1"), unregistered(2, 2))
    assert [(r.registration_id, r.user_agent) for r in state.registrations.values()] == [(1, "a/1"), (3, "c/1")]
    assert state.version == 4 and state.last_id == 3
