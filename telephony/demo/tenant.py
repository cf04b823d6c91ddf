"""The demo tenant built from its plan, through the API and the operator's endpoints.

The customer and its root user are the server's first customer (the demo's settings name them: see
`settings.py`); everything else is a request, as an integrator would make it. `build` answers the ids
the history and the live traffic need.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .operator import Operator
from .plan import (
    ACCOUNTS_LINE,
    FAX_LINE,
    IVR_KEYS,
    MAIN_LINE,
    PASSWORD,
    SALES_LINE,
    SMS_LINE,
    SUPPORT_LINE,
    Plan,
)

VOICEMAIL_OF = 2
"""`target_type` 2: a user's voicemail (`final_dst_id` the user)."""
TARIFFS = [
    {"prefix": "447", "name": "United Kingdom mobile", "per_minute": 0.06, "increment": "1/1", "sms": 0.04},
    {"prefix": "44", "name": "United Kingdom", "per_minute": 0.015, "increment": "1/1", "connection_fee": 0.01},
]


@dataclass(frozen=True)
class Tenant:
    """The ids of what was built: users in the plan's order, queues by department, the ring group."""

    customer_id: int
    users: tuple[int, ...]
    queues: dict[str, int]
    ring_group: int
    ivr: int


async def sign_in(op: Operator, plan: Plan, label: str = "demo") -> None:
    """The root user logs in and makes the never-expiring API token the demo's requests then carry (its
    name unique among the user's tokens)."""
    op.token = (await op.api("POST", "/login", {"email": plan.root.email, "password": PASSWORD}))["user_token"]
    op.token = (await op.api("POST", "/apitokens", {"name": label, "expiry": 0}))["data"]["token"]


async def build(op: Operator, plan: Plan) -> Tenant:
    await sign_in(op, plan)
    me = (await op.api("GET", "/me"))["data"]
    customer_id, root = me["customer_id"], me["id"]
    groups = {}
    for department in dict.fromkeys(p.department for p in plan.people):
        groups[department] = (await op.api("POST", "/usergroups", {"name": department}))["data"]["id"]
    users = []
    for n, person in enumerate(plan.people):
        fields = {"first_name": person.first_name, "last_name": person.last_name, "ext": person.ext,
                  "groups": [groups[person.department]], "monitor": "A" if person.records else "N"}  # fmt: skip
        if n == 0:
            await op.control("PATCH", f"/users/{root}", fields)
            users.append(root)
            continue
        body = {**fields, "email": person.email, "password": PASSWORD}
        if n == plan.in_department(person.department)[0]:
            body["roles"] = ["ROLE_ADMIN"]
        users.append((await op.control("POST", f"/customers/{customer_id}/users", body))["data"]["id"])
    await _numbers(op, plan, customer_id, users)
    queues = {}
    for department in ("Sales", "Support"):
        members = [{"id": users[n], "status": True} for n in plan.in_department(department)]
        lead = users[plan.in_department(department)[0]]
        queue: dict[str, Any] = {
            "name": department, "users": members, "ring_strategy": 2, "ring_time": 15, "wrap_up_time": 10,
            "max_wait_time": 180, "ddis": [SALES_LINE if department == "Sales" else SUPPORT_LINE],
            "final_dst_type": VOICEMAIL_OF, "final_dst_id": lead}  # fmt: skip
        queues[department] = (await op.api("POST", "/queues", queue))["data"]["id"]
    accounts = [users[n] for n in plan.in_department("Accounts")]
    ring_group = (await op.api("POST", "/ringgroups", {
        "name": "Accounts", "users": accounts, "strategy": 1, "ring_time": 20, "ddis": [ACCOUNTS_LINE],
        "final_dst_type": VOICEMAIL_OF, "final_dst_id": accounts[0]}))["data"]["id"]  # fmt: skip
    operator = users[plan.in_department("Operations")[0]]
    actions = {"Sales": f"Q:{queues['Sales']}", "Support": f"Q:{queues['Support']}", "Accounts": f"R:{ring_group}"}
    keys = {("one", "two", "three")[int(key) - 1]: actions[team] for key, team in IVR_KEYS.items()}
    ivr = (await op.api("POST", "/ivrs", {
        "name": "Main menu", "ddis": [MAIN_LINE], "timeout": 5, "repeats": 2, "ext_dialing": True,
        "zero": f"U:{operator}", **keys, "final_dst_type": 1, "final_dst_id": operator}))["data"]["id"]  # fmt: skip
    for contact in plan.contacts:
        await op.api("POST", "/contacts", {"first_name": contact.first_name, "last_name": contact.last_name,
                                           "company": contact.company, "tel": contact.tel, "mobile": contact.mobile,
                                           "email": contact.email})  # fmt: skip
    await op.control("PUT", f"/customers/{customer_id}/tariffs", TARIFFS)
    await op.control("POST", f"/customers/{customer_id}/credit", {"amount": 250, "note": "Opening balance"})
    return Tenant(customer_id, tuple(users), queues, ring_group, ivr)


async def _numbers(op: Operator, plan: Plan, customer_id: int, users: list[int]) -> None:
    """The company's numbers: the main line, a line per team, fax and SMS, and the direct lines."""
    lines = [(MAIN_LINE, "Main line", {}), (SALES_LINE, "Sales", {}), (SUPPORT_LINE, "Support", {}),
             (ACCOUNTS_LINE, "Accounts", {}), (FAX_LINE, "Fax", {"fax_enabled": True}),
             (SMS_LINE, "Text messages", {"sms_enabled": True})]  # fmt: skip
    for e164, name, options in lines:
        await op.control("POST", f"/customers/{customer_id}/ddis", {"e164": e164, "name": name, **options})
    for n, person in enumerate(plan.people):
        if person.direct:
            name = f"{person.first_name} {person.last_name}"
            await op.control("POST", f"/customers/{customer_id}/ddis", {"e164": person.direct, "name": name})
            await op.control("PATCH", f"/ddis/{person.direct}", {"target_type": "user", "target_id": users[n]})
