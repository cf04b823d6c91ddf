"""Taking a step: each action is one request of the API or the operator's, as the step's user.

`take` answers what the step made, in words (`call 7`), and names it (`name`); a step answered with
another status than its `status` (any 2xx by default) is a `StepFailed`, saying what it got.
"""

from __future__ import annotations

from typing import Any

from ...domain.scenario_file import Step, action, bare
from ..client import Answer
from .context import Run


class StepFailed(Exception):
    """The step was answered otherwise than it expected."""


def take(run: Run, step: Step, at: str) -> str:
    """Take `step` (the file's `at`, `steps[3]`); what it made, in words."""
    kind = action(step)
    method, path, body = _request(run, step, kind, f"{at}.{kind}")
    answer = run.send(method, path, body, step.as_)
    expected = step.status
    if (answer.status != expected) if expected is not None else not answer.ok:
        wanted = f"{expected}" if expected is not None else "a 2xx answer"
        raise StepFailed(f"{method} {path} answered {answer.status} ({answer.message}), not {wanted}")
    return _remember(run, step, kind, answer)


def _request(run: Run, step: Step, kind: str, at: str) -> tuple[str, str, Any]:
    """The method, path and body of a step's action."""
    given = getattr(step, kind)
    if kind in ("inbound_call", "inbound_sms"):
        return "POST", f"/_telephony/simulate/{kind.replace('_', '-')}", run.resolve(given, at)
    if kind == "call":
        body = run.resolve(given, at)
        return "POST", "/calls", {"from": run.named(step.as_, f"{at}.as") if step.as_ else run.root_id, **body}
    if kind == "dtmf":
        return "POST", f"/_telephony/calls/{_now_in(run, given.call, at)}/dtmf", {"digits": given.digits}
    if kind == "answer":
        return "PATCH", f"/calls/{_now_in(run, given, at)}", {"state": "answer"}
    if kind == "hangup":
        return "DELETE", f"/calls/{_now_in(run, given, at)}", None
    if kind == "transfer":
        return "PATCH", f"/calls/{_now_in(run, given.call, at)}", {"dst": run.resolve(given.to, at)}
    if kind == "agent":
        queue, user = run.named(given.queue, at), run.named(given.user, at)
        members = run.get(f"/queues/{queue}")["data"].get("users") or []
        changed = {"id": user, "status": given.logged_in}
        users = [changed if member == user else member for member in members]  # in the members' order
        return "PATCH", f"/queues/{queue}", {"users": users if user in members else [*users, changed]}
    if kind == "fault":
        return "POST", "/_telephony/faults", run.resolve(given, at)
    if kind == "stop_fault":
        return "DELETE", f"/_telephony/faults/{run.named(given, at)}", None
    return given.method, run.resolve(given.path, f"{at}.path"), run.resolve(given.body, f"{at}.body")


def _now_in(run: Run, name: str, at: str) -> int:
    """The leg a named call is in now (its last one)."""
    return run.legs(run.call(name, at))[-1]


def _remember(run: Run, step: Step, kind: str, answer: Answer) -> str:
    """Name what the step made (a record's id: a call's, an SMS's, a fault rule's) and say it."""
    data = answer.body.get("data", answer.body) if isinstance(answer.body, dict) else None
    made = data.get("id") if isinstance(data, dict) else None
    if step.name and made is not None:
        run.made[step.name] = made
        if kind in ("inbound_call", "call"):
            run.calls[step.name] = made
    noun = {"inbound_call": "call", "call": "call", "inbound_sms": "SMS", "fault": "fault rule"}.get(kind)
    said = f"{noun} {made}" if noun and made is not None else _SAID.get(kind, "{status}")
    if kind == "request" and made is not None:
        said += f", id {made}"
    state = data.get("state") if isinstance(data, dict) else ""
    logged = ("in to" if step.agent.logged_in else "out of") if step.agent else ""
    given = getattr(step, kind)
    named = bare(given if isinstance(given, str) else str(getattr(given, "call", None) or getattr(given, "user", "")))
    queue = bare(step.agent.queue) if step.agent else ""
    said = said.format(step=step, status=answer.status, state=state, logged=logged, named=named, queue=queue)
    return f"{said} ({step.name})" if step.name else said


_SAID = {
    "dtmf": "{step.dtmf.digits} pressed: {state}",
    "answer": "{named} answered: {state}",
    "hangup": "{named} hung up",
    "transfer": "{named} transferred to {step.transfer.to}",
    "agent": "{named} logged {logged} {queue}",
    "stop_fault": "{named} stopped",
}
"""What a step that names no record says it did (`named`: the call, user or fault rule it names)."""
