"""The traffic the old log holds: accounts, the PBX, calls down every routing path, billing, messages,
webhooks, reports, an import, deletes and clears (`drive`: all of it, in order).

Part of the script that made `old_log/` with the code before typed events (`make_old_log.py`).
"""

from __future__ import annotations

import msgspec

from .old_log_driver import ANSWERS, BUSY, CALLER, FAX_LINE, HOME, NO_ANSWER, NUMBER, PASSWORD, SMS_LINE, Driver, wav


async def accounts(d: Driver) -> dict[str, int]:
    """Users, logins with a second factor and a reset, tokens, API keys, SIP clients, a second customer."""
    d.token = await d.login()
    users = {
        "desk": await d.user("desk@example.com", ext="220", first_name="Dee", monitor="A"),
        "agent": await d.user("agent@example.com", ext="290", first_name="Al"),
        "fm": await d.user("fm@example.com", ext="250", fm=True, fm_strategy="H",
                           fm_targets=["447700900801", "447700900802"], fm_ring_time="12"),
        "dnd": await d.user("dnd@example.com", ext="221", dnd=True, vm_to_email=True, vm_emails=["dee@example.com"]),
        "rg1": await d.user("rg1@example.com", ext="231"),
        "rg2": await d.user("rg2@example.com", ext="232", mobile="+447700900777", mobile_activated=True),
        "twofa": await d.user("twofa@example.com", two_factor_auth="E", roles=["ROLE_AGENT"]),
        "gone": await d.user("gone@example.com", ext="299"),
    }  # fmt: skip
    nonce = (await d.call("POST", "/login", json={"email": "twofa@example.com", "password": PASSWORD,
                                                  "device_fingerprint": "laptop-1"}, headers={}))["nonce"]  # fmt: skip
    mails = (await d.call("GET", "/_telephony/outbox", params={"to": "twofa@example.com"}))["data"]
    code = mails[-1]["body"].rsplit(" ", 1)[1]
    await d.call("POST", "/login2fa", json={"code": code, "nonce": nonce, "add_device": True}, headers={})
    await d.call("POST", "/password", json={"email": "agent@example.com"}, headers={})
    mails = (await d.call("GET", "/_telephony/outbox", params={"to": "agent@example.com"}))["data"]
    reset = mails[-1]["body"].rsplit(" ", 1)[1]
    await d.call("POST", "/reset", json={"token": reset, "password": PASSWORD + "-2"}, headers={})
    await d.call("POST", "/apitokens", json={"name": "ci", "expiry": 0})
    await d.call("POST", f"/_telephony/users/{users['desk']}/apikeys", json={"name": "integration"})
    added = (await d.call("POST", f"/_telephony/users/{users['desk']}/registrations",
                          json={"user_agent": "Zoiper/5.6"}))["data"]  # fmt: skip
    await d.call("POST", f"/_telephony/users/{users['rg1']}/registrations", json={})
    await d.call("DELETE", f"/_telephony/users/{users['desk']}/registrations/{added['id']}")
    await d.call("PATCH", f"/_telephony/users/{users['desk']}", json={"first_name": "Deidre", "cw": True})
    await d.call("DELETE", f"/users/{users['gone']}")
    other = (await d.call("POST", "/_telephony/customers", json={"name": "Closing Ltd", "admin_email":
                          "closing@example.com", "admin_password": PASSWORD}))["data"]  # fmt: skip
    closing = await d.login("closing@example.com", PASSWORD)
    await d.call("POST", "/contacts", json={"first_name": "Temp"}, headers={"X-Auth-Token": closing})
    await d.call("DELETE", f"/customers/{other['customer']['id']}", headers={"X-Auth-Token": closing})
    return users


async def configuration(d: Driver, users: dict[str, int]) -> dict[str, int]:
    """The PBX: numbers, contacts, labels, a queue, an IVR, a ring group, a conference, rules, files."""
    await d.call("POST", f"/_telephony/customers/{HOME}/ddis", json={"e164": NUMBER})
    await d.call("POST", f"/_telephony/customers/{HOME}/ddis", json={"e164": SMS_LINE, "sms_enabled": True,
                 "sms_email": "sms@example.com", "target_type": "U", "target_id": users["rg2"]})  # fmt: skip
    await d.call("POST", f"/_telephony/customers/{HOME}/ddis", json={"e164": FAX_LINE, "fax_enabled": True,
                 "fax_email": "faxes@example.com"})  # fmt: skip
    made = {
        "contact": await d.create("/contacts", first_name="Carl", tel=CALLER),
        "contact2": await d.create("/contacts", first_name="Bob", company="Acme"),
        "contact3": await d.create("/contacts", first_name="Zoe"),
        "label": await d.create("/calllabels", name="VIP"),
        "queue": await d.create("/queues", name="Support", users=[{"id": users["agent"], "status": True}],
                                ring_time=10, retry=5, max_wait_time=30, final_dst_type="V",
                                final_dst_id=users["agent"]),
        "ringgroup": await d.create("/ringgroups", name="Sales", users=[users["rg1"], users["rg2"]], strategy=1,
                                    ring_time=20),
        "conference": await d.create("/conferences", name="Board", pin="4321"),
        "campaign": await d.create("/calltracking/campaigns", name="Spring"),
        "announcement": await d.create("/vmannouncements", extension_id=users["desk"], description="hello",
                                       data=wav()),
    }  # fmt: skip
    made["ivr"] = await d.create("/ivrs", name="Menu", two=f"Q:{made['queue']}", five=f"U:{users['desk']}",
                                 timeout=5, repeats=2, ext_dialing=True, ddis=[NUMBER])  # fmt: skip
    made["rule"] = await d.create("/routingrules", action="hangup", direction=2, destination=["+449099"])
    await d.call("PATCH", f"/contacts/{made['contact2']}", json={"company": "Acme Ltd"})
    await d.call("PATCH", "/calltracking/ddis", json=[{"e164": NUMBER, "campaign_id": made["campaign"]}])
    return made


async def calls(d: Driver, users: dict[str, int], made: dict[str, int]) -> None:
    """Click-to-call, lead and web calls, call control, and inbound calls down every routing path."""
    desk = await d.login("desk@example.com", PASSWORD)
    as_desk = {"X-Auth-Token": desk}
    placed = (await d.call("POST", "/calls", json={"to": ANSWERS + "1"}, headers=as_desk))["data"]
    await d.advance(6)
    await d.call("PATCH", f"/calls/{placed['id']}", json={"state": "hold"}, headers=as_desk)
    await d.advance(3)
    await d.call("PATCH", f"/calls/{placed['id']}", json={"state": "unhold", "labels": [made["label"]],
                 "action_url": "https://crm.example/x", "action_text": "Open"}, headers=as_desk)  # fmt: skip
    await d.call("PATCH", f"/calls/{placed['id']}", json={"monitor_state": "pause"}, headers=as_desk)
    await d.advance(2)
    await d.call("PATCH", f"/calls/{placed['id']}", json={"monitor_state": "resume"}, headers=as_desk)
    await d.advance(70)
    recorded = (await d.call("POST", "/calls", json={"to": ANSWERS + "2"}))["data"]
    await d.advance(10)
    await d.call("PATCH", f"/calls/{recorded['id']}", json={"monitor_state": "start"})
    await d.advance(5)
    await d.call("PATCH", f"/calls/{recorded['id']}", json={"dst": ANSWERS + "9"})  # a blind transfer
    await d.advance(5)
    hung = (await d.call("POST", "/calls", json={"to": ANSWERS + "3"}))["data"]
    await d.advance(8)
    await d.call("DELETE", f"/calls/{hung['id']}")
    await d.call("POST", "/calls", json={"to": BUSY + "1"})
    await d.call("POST", "/calls", json={"to": NO_ANSWER + "1"})
    await d.call("POST", "/calls", json={"to": "220"})  # an extension: a local call
    await d.call("POST", "/calls", json={"to": "+449099123"})  # a routing rule hangs it up
    await d.call("POST", "/leadcalls", json={"to": ANSWERS + "4", "tts": "Hello"})
    await d.call("POST", "/webcalls", json={"from": "447700900001", "to": ANSWERS + "5"})
    await d.advance(100)
    # inbound: an IVR, a key to the queue, the agent answers
    await d.ring(digits=[{"key": "2", "after": 2}], answer={str(users["agent"]): 3}, hangup_after=40)
    await d.advance(50)
    # the IVR by the DTMF endpoint, on to an extension
    call = await d.ring(answer={str(users["desk"]): 2}, hangup_after=60)
    await d.advance(1)
    await d.call("POST", f"/_telephony/calls/{call['id']}/dtmf", json={"digits": "9"})
    await d.call("POST", f"/_telephony/calls/{call['id']}/dtmf", json={"digits": "220"})
    await d.advance(70)
    # a user who answers, one on follow-me, a ring group, voicemail on DND, a conference, a missed call
    await d.route_number(target_type="U", target_id=users["desk"])
    await d.ring(answer={str(users["desk"]): 4}, hangup_after=30)
    await d.advance(40)
    await d.route_number(target_type="U", target_id=users["fm"])
    await d.ring(answer={str(users["fm"]): "busy", "447700900801": "never", "447700900802": 5}, hangup_after=40)
    await d.advance(60)
    await d.route_number(target_type="R", target_id=made["ringgroup"])
    await d.ring(answer={str(users["rg1"]): 9, str(users["rg2"]): 3}, hangup_after=30)
    await d.advance(40)
    await d.route_number(target_type="U", target_id=users["dnd"])
    await d.ring(hangup_after=20)
    await d.advance(30)
    await d.route_number(target_type="C", target_id=made["conference"])
    await d.ring(digits=["4321"], hangup_after=20)
    await d.ring(**{"from": "447700900556"}, digits=["1111"])
    await d.advance(30)
    await d.route_number(target_type="H")
    await d.ring()
    await d.route_number(target_type="U", target_id=users["rg1"])
    await d.ring(answer={str(users["rg1"]): "never"}, hangup_after=8)
    await d.advance(20)


async def billing(d: Driver) -> None:
    await d.call("POST", f"/_telephony/customers/{HOME}/credit", json={"amount": 10, "note": "Card"})
    await d.call("POST", f"/_telephony/customers/{HOME}/credit", json={"amount": -2.5, "type": "adjustment",
                 "note": "Goodwill reversal"})  # fmt: skip
    await d.call("PUT", f"/_telephony/customers/{HOME}/tariffs", json=[{"prefix": "4420", "name": "London",
                 "per_minute": 0.01}])  # fmt: skip


async def messages(d: Driver, users: dict[str, int]) -> None:
    """SMS out and in, a fax, chats; deletes and clears of them."""
    sent = (await d.call("POST", "/sms", json={"to": "+447700900123", "message": "Your code is {1234} € " + "x" * 150}
                         ))["data"]  # fmt: skip
    await d.call("POST", "/sms", json={"to": "+447700900124", "message": "Zażółć gęślą jaźń", "from": SMS_LINE})
    await d.call("POST", "/_telephony/simulate/inbound-sms", json={"from": "+447700900123", "to": SMS_LINE,
                 "text": "Are you open?"})  # fmt: skip
    await d.advance(5)
    await d.call("DELETE", f"/sms/{sent['id']}", status=(204, 404, 405))
    await d.call("POST", "/_telephony/simulate/inbound-fax", json={"from": "+33123456789", "to": FAX_LINE, "pages": 2})
    made = (await d.call("POST", "/_telephony/simulate/chat", json={"customer_id": HOME, "operator_id": users["desk"],
            "website_id": 3, "duration": 90, "visitor": {"name": "Vera", "email": "vera@example.com", "country": "PL"},
            "messages": [{"text": "Hi, is it open today?"}, {"from": "operator", "text": "Yes, until six.",
                                                             "after": 20}]}))["data"]  # fmt: skip
    await d.call("POST", "/_telephony/simulate/chat", json={"customer_id": HOME, "messages": [{"text": "Hello?"}]})
    await d.advance(95)
    first = (await d.call("GET", f"/users/{users['desk']}/chatmsgs?sort=id"))["data"][0]
    await d.call("DELETE", f"/chatmsgs/{first['id']}")
    assert made["id"]


async def webhooks(d: Driver, receivers: dict[str, str]) -> None:
    await d.call("POST", "/_telephony/webhooks", headers=d.auth, json={"name": "crm", "url": receivers["flaky"],
                 "events": ["call.state", "sms.received"]})  # fmt: skip
    await d.call("POST", "/_telephony/webhooks", headers=d.auth, json={"name": "dead", "url": receivers["dead"],
                 "events": ["call.hangup"]})  # fmt: skip
    await d.call("POST", "/_telephony/webhooks", headers=d.auth, json={"name": "spare", "url": receivers["flaky"],
                 "events": ["call.missed"]})  # fmt: skip
    await d.call("PATCH", "/_telephony/webhooks/spare", headers=d.auth, json={"enabled": False})
    await d.call("POST", "/_telephony/webhooks/spare/rotate-secret", headers=d.auth)
    await d.call("DELETE", "/_telephony/webhooks/spare", headers=d.auth)
    await d.call("POST", "/calls", json={"to": ANSWERS + "6"})
    await d.call("POST", "/_telephony/simulate/inbound-sms", json={"from": "+447700900125", "to": SMS_LINE,
                 "text": "Call me"})  # fmt: skip
    await d.advance(70)
    for wait in (5, 30, 300, 1800, 7200):  # retries; the dead receiver's webhook is disabled past an hour
        await d.advance(wait * 1.1)
    deliveries = await d.call("GET", "/_telephony/webhooks/crm/deliveries?sort=id", headers=d.auth)
    await d.call("POST", f"/_telephony/deliveries/{deliveries['data'][0]['id']}/redeliver", headers=d.auth)
    await d.advance(1)


async def reports(d: Driver) -> None:
    await d.call(
        "POST",
        "/reportschedules",
        json={
            "report_id": 2,
            "name": "Calls",
            "emails": ["boss@example.com"],
            "format": "csv",
            "frequency": {"type": "daily", "time_of_day": [9]},
            "timezone": "Europe/Warsaw",
        },
    )
    paused = await d.create("/reportschedules", report_id=2, name="Paused", emails=["boss@example.com"],
                            format="pdf", frequency={"type": "weekly", "day_of_week": [1], "time_of_day": [7]},
                            timezone="UTC")  # fmt: skip
    await d.call("PATCH", f"/reportschedules/{paused}", json={"name": "Paused weekly"})


async def an_import(d: Driver) -> None:
    lines = [{"resource": "contacts", "customer_id": HOME, "data": {"first_name": "Imported", "tel": "+447700900999"}}]
    lines += [{"resource": "cdrs", "customer_id": HOME, "data": {
        "calldate": f"2026-05-{n:02d} 12:00:00", "src": "+447700900123", "dst": f"+4420{n:08d}", "type": "O",
        "disposition": "CONNECTED", "destination": "out", "duration": 30 + n, "live_id": 900_000 + n,
        "user_id": 1000001}} for n in range(1, 6)]  # fmt: skip
    lines.append({"resource": "monitors", "customer_id": HOME, "data": {"live_id": 900_001, "duration": 30}})
    await d.call("POST", "/_telephony/import", data=b"\n".join(msgspec.json.encode(line) for line in lines))


async def deletes(d: Driver, made: dict[str, int]) -> None:
    await d.call("DELETE", f"/contacts/{made['contact3']},{made['contact2']}", status=(202, 204))
    await d.call("DELETE", f"/calllabels/{made['label']}")
    await d.call("DELETE", "/statements")
    monitors = (await d.call("GET", "/monitors?sort=id"))["data"]
    await d.call("DELETE", f"/monitors/{monitors[-1]['id']}", status=(202, 204))
    await d.call("DELETE", "/chatmsgs", status=(202, 204))
    await d.call("DELETE", "/sms", status=(202, 204))
    await d.call("POST", "/sms", json={"to": "+447700900126", "message": "After the clear"})
    await d.advance(5)


async def drive(d: Driver, receivers: dict[str, str]) -> None:
    """All of it, in order, and a month's close by a moved clock; the app settled at the end."""
    users = await accounts(d)
    made = await configuration(d, users)
    await webhooks(d, receivers)
    await billing(d)
    await calls(d, users, made)
    await messages(d, users)
    await reports(d)
    await d.set_clock("2026-07-01 07:00:00")  # the month closes its invoice; the report runs at nine
    await d.call("POST", "/calls", json={"to": ANSWERS + "7"})  # a charge of the new month
    await d.advance(80)
    await an_import(d)
    await deletes(d, made)
    await d.settled()
