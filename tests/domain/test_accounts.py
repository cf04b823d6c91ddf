"""The rules of accounts: given these events, when this command, then these events (or this refusal)."""

from __future__ import annotations

import pytest

from telephony.domain import accounts as rules
from telephony.domain.errors import Invalid, Unknown
from telephony.domain.events import NewEvent, tag_of
from telephony.domain.events.base import data_of

from .given import shapes, stored, typed

CUSTOMER, USER, OTHER_USER = 100001, 1000001, 1000002
NOW = 1_800_000_000.0


def given_customer(*events: tuple[str, dict]) -> rules.Customer:
    return rules.fold(rules.evolve_customer, rules.Customer(CUSTOMER), [typed(*e) for e in events])


def given_user(*events: tuple[str, dict], user_id: int = USER) -> rules.User:
    return rules.fold(rules.evolve_user, rules.User(user_id), [typed(*e) for e in events])


def given_token(*events: tuple[str, dict]) -> rules.Token:
    return rules.fold(rules.evolve_token, rules.Token("t1"), [typed(*e) for e in events])


OPENED = ("customer.created", {"id": CUSTOMER, "name": "Acme", "created_at": "2026-01-01 00:00:00"})
CLOSED = ("customer.deleted", {"id": CUSTOMER})
REGISTERED = ("user.created", {"id": USER, "customer_id": CUSTOMER, "body": {"id": USER, "email": "Ann@Example.com"},
                                   "password_hash": "h", "sip_password_sealed": "s"})  # fmt: skip
REMOVED = ("user.deleted", {"id": USER})
CHALLENGED = ("user.challenge_issued", {"id": USER, "nonce_digest": "n1", "code_hash": "c", "expires_at": NOW + 600,
                                       "device_digest": "laptop"})  # fmt: skip
RESET_ASKED = ("user.reset_requested", {"id": USER, "reset_digest": "r1", "expires_at": NOW + 3600})
GRANT = {"kind": "apitoken", "name": "ci", "digest": "d", "sealed": None, "customer_id": CUSTOMER, "expiry": 0,
         "inactivity": 0, "api_version": "v1.2", "created_at": "2026-01-01 00:00:00", "issued_epoch": NOW,
         "host": None, "user_agent": None}  # fmt: skip
ISSUED = ("token.issued", {"token_id": "t1", **GRANT, "user_id": USER})


# --- customers ---------------------------------------------------------------------------------------


def test_a_new_customer_is_opened_on_a_stream_that_must_not_exist_yet():
    facts = rules.open_customer(given_customer(), "Acme", "2026-01-01 00:00:00")
    assert shapes(facts) == [(f"customer-{CUSTOMER}", "customer.created", 0)]
    assert data_of(facts[0].event) == OPENED[1]


def test_a_customer_id_is_never_opened_twice_even_after_its_deletion():
    with pytest.raises(Invalid):
        rules.open_customer(given_customer(OPENED, CLOSED), "Again", "2026-01-02 00:00:00")


def test_closing_a_customer_revokes_the_live_tokens_it_is_given():
    facts = rules.close_customer(given_customer(OPENED), ["a", "b"])
    revoked = [("token-a", "token.revoked", None), ("token-b", "token.revoked", None)]
    assert shapes(facts) == [(f"customer-{CUSTOMER}", "customer.deleted", 1), *revoked]
    assert data_of(facts[1].event) == {"token_id": "a", "reason": "customer_deleted"}


def test_a_closed_customer_is_unknown():
    with pytest.raises(Unknown, match="Customer 100001 not found"):
        rules.close_customer(given_customer(OPENED, CLOSED), [])


# --- users -------------------------------------------------------------------------------------------


def register(customer: rules.Customer, *, email_in_use: bool = False) -> list[NewEvent]:
    return rules.register_user(customer, given_user(), {"id": USER, "email": "ann@example.com"}, "hash", "sealed",
                               email_in_use=email_in_use)  # fmt: skip


def test_a_user_is_registered_for_an_open_customer():
    (fact,) = register(given_customer(OPENED))
    assert shapes([fact]) == [(f"user-{USER}", "user.created", 0)]
    assert data_of(fact.event)["customer_id"] == CUSTOMER and data_of(fact.event)["password_hash"] == "hash"


def test_an_email_in_use_anywhere_refuses_the_registration_naming_the_email():
    with pytest.raises(Invalid) as refused:
        register(given_customer(OPENED), email_in_use=True)
    assert refused.value.problems == [("email", "This email is already used")]


def test_no_user_is_registered_for_a_closed_customer():
    with pytest.raises(Unknown):
        register(given_customer(OPENED, CLOSED))


def test_a_users_attributes_change_only_within_its_customer():
    user = given_user(REGISTERED)
    facts = rules.change_user(user, CUSTOMER, {"location_id": "7"})
    assert shapes(facts) == [(f"user-{USER}", "user.updated", 1)]
    with pytest.raises(Unknown):
        rules.change_user(user, CUSTOMER + 1, {"location_id": "7"})


def test_a_root_user_cannot_remove_itself_but_removes_others_and_their_tokens():
    user = given_user(REGISTERED)
    with pytest.raises(Invalid, match="You cannot delete your own user"):
        rules.remove_user(user, CUSTOMER, USER, [])
    facts = rules.remove_user(user, CUSTOMER, OTHER_USER, ["t9"])
    assert shapes(facts) == [(f"user-{USER}", "user.deleted", 1), ("token-t9", "token.revoked", None)]


def test_a_removed_user_is_unknown_to_every_command():
    user = given_user(REGISTERED, REMOVED)
    for command in (lambda: rules.change_user(user, CUSTOMER, {}), lambda: rules.request_reset(user, "r", NOW),
                    lambda: rules.issue_challenge(user, "n", "c", NOW, None)):  # fmt: skip
        with pytest.raises(Unknown):
            command()


# --- the second factor -------------------------------------------------------------------------------


def test_a_right_code_passes_the_challenge_once_and_remembers_the_device_that_logged_in():
    user = given_user(REGISTERED, CHALLENGED)
    facts = rules.pass_challenge(user, "n1", code_matches=True, now=NOW, device_digest=None, add_device=True)
    assert shapes(facts) == [(f"user-{USER}", "user.challenge_passed", 2), (f"user-{USER}", "user.device_added", None)]
    assert data_of(facts[1].event)["device_digest"] == "laptop"
    passed = given_user(REGISTERED, CHALLENGED, *[stored(f) for f in facts])
    assert passed.devices == {"laptop"}
    with pytest.raises(Invalid, match=rules.BAD_CODE):
        rules.pass_challenge(passed, "n1", code_matches=True, now=NOW, device_digest=None, add_device=False)


@pytest.mark.parametrize(
    ("nonce", "code_matches", "now"),
    [("n1", False, NOW), ("n1", True, NOW + 601), ("unknown", True, NOW)],
    ids=["wrong code", "expired", "unknown nonce"],
)
def test_a_challenge_is_refused_with_a_wrong_code_after_expiry_or_for_another_nonce(nonce, code_matches, now):
    user = given_user(REGISTERED, CHALLENGED)
    with pytest.raises(Invalid, match=rules.BAD_CODE):
        rules.pass_challenge(user, nonce, code_matches=code_matches, now=now, device_digest=None, add_device=True)


# --- password resets ---------------------------------------------------------------------------------


def test_a_reset_token_changes_the_password_once_and_revokes_every_token():
    user = given_user(REGISTERED, RESET_ASKED)
    facts = rules.complete_reset(user, "r1", "new-hash", NOW, ["t1", "t2"])
    assert [tag_of(type(f.event)) for f in facts] == ["user.reset_used", "user.password_changed", "token.revoked",
                                                      "token.revoked"]  # fmt: skip
    assert data_of(facts[1].event) == {"id": USER, "password_hash": "new-hash"}
    used = given_user(REGISTERED, RESET_ASKED, *[stored(f) for f in facts[:2]])
    with pytest.raises(Invalid) as refused:
        rules.complete_reset(used, "r1", "again", NOW, [])
    assert refused.value.problems == [("token", rules.BAD_RESET)]


def test_an_expired_reset_token_is_refused():
    with pytest.raises(Invalid):
        rules.complete_reset(given_user(REGISTERED, RESET_ASKED), "r1", "h", NOW + 3601, [])


# --- tokens ------------------------------------------------------------------------------------------


def test_a_token_is_issued_for_a_live_user_with_a_name_unique_among_its_kind():
    grant = GRANT
    facts = rules.issue_token(given_token(), given_user(REGISTERED), grant)
    assert shapes(facts) == [("token-t1", "token.issued", 0)]
    assert data_of(facts[0].event) == {"token_id": "t1", **GRANT, "user_id": USER}
    with pytest.raises(Invalid) as refused:
        rules.issue_token(given_token(), given_user(REGISTERED), grant, name_in_use=True)
    assert refused.value.problems == [("name", "This name is already used")]
    with pytest.raises(Unknown):
        rules.issue_token(given_token(), given_user(REGISTERED, REMOVED), grant)


def test_a_revoked_token_is_revoked_once_and_its_use_is_no_news():
    token = given_token(ISSUED)
    (revoked,) = rules.revoke_token(token, "logout")
    assert shapes([revoked]) == [("token-t1", "token.revoked", 1)] and data_of(revoked.event)["reason"] == "logout"
    dead = given_token(ISSUED, stored(revoked))
    assert rules.revoke_token(dead, "expired") == []
    assert rules.touch_token(dead, "2026-01-01 00:00:00", NOW) == []
    assert shapes(rules.touch_token(token, "2026-01-01 00:00:00", NOW)) == [("token-t1", "token.touched", 1)]
