"""Making a scenario's customer and what it has, with the API's and the operator's own requests.

A customer of the run's own (its root user's email tagged with the log's position, so runs on one
server never collide), then `setup` in the order of `SETUP_ORDER`, each body sent as written once its
names are resolved. A body the server refuses makes the scenario unrunnable, each problem told with
the line of the field it names.
"""

from __future__ import annotations

from typing import Any

from ...domain.scenario_file import SETUP_ORDER, Scenario
from ..client import Answer
from .context import Run, Unrunnable

COLLECTIONS = {"contacts": "/contacts", "queues": "/queues", "ringgroups": "/ringgroups", "ivrs": "/ivrs",
               "routingrules": "/routingrules"}  # fmt: skip


def make(run: Run, scenario: Scenario) -> None:
    tag = f"p{run.control.request('GET', '/_telephony/health')['position']}"
    password = f"scenario-{tag}-password"
    root = {"name": scenario.customer, "admin_email": f"root.{tag}@scenario.test", "admin_password": password}
    opened = _made(run, "customer", run.control.send("POST", "/_telephony/customers", root))
    run.customer_id, run.root_id = opened["customer"]["id"], opened["user"]["id"]
    run.made["customer"] = run.customer_id
    run.keys[""] = _api_key(run, run.root_id, "customer")
    customer = f"/_telephony/customers/{run.customer_id}"
    for kind in SETUP_ORDER:
        for name, body in getattr(scenario.setup, kind).items():
            at = f"setup.{kind}.{name}"
            body = run.resolve(body, at)
            if kind == "users":
                body = {"email": f"{name}.{tag}@scenario.test", "password": password, **body}
                run.made[name] = _made(run, at, run.control.send("POST", f"{customer}/users", body))["id"]
                run.keys[name] = _api_key(run, run.made[name], at)
            elif kind == "numbers":
                run.made[name] = _made(run, at, run.control.send("POST", f"{customer}/ddis", body))["id"]
            elif kind == "webhooks":
                _made(run, at, run.send("POST", "/_telephony/webhooks", {"name": name, **body}))
                run.made[name] = name
            else:
                run.made[name] = _made(run, at, run.send("POST", COLLECTIONS[kind], body))["id"]
    if scenario.setup.tariffs:
        tariffs = run.resolve(scenario.setup.tariffs, "setup.tariffs")
        _made(run, "setup.tariffs", run.control.send("PUT", f"{customer}/tariffs", tariffs))
    if scenario.setup.credit is not None:
        _made(run, "setup.credit", run.control.send("POST", f"{customer}/credit", {"amount": scenario.setup.credit}))


def _api_key(run: Run, user_id: int, at: str) -> str:
    return str(_made(run, at, run.control.send("POST", f"/_telephony/users/{user_id}/apikeys", {"name": "scenario"}))
               ["key"])  # fmt: skip


def _made(run: Run, at: str, answer: Answer) -> Any:
    """What a setup request made (its `data`); Unrunnable naming each field the server refused."""
    if answer.ok:
        return answer.body["data"] if isinstance(answer.body, dict) and "data" in answer.body else answer.body
    errors = answer.body.get("errors", []) if isinstance(answer.body, dict) else []
    named = [(f"{at}.{e['field']}" if e.get("field") else at, e["message"]) for e in errors] or [(at, answer.message)]
    raise Unrunnable("\n".join(f"{run.where(path)}: {path}: the server refused it ({answer.status}): {message}"
                               for path, message in named))  # fmt: skip
