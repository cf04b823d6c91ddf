"""An agent logged in to or out of a queue: the change `PATCH /queues/{id}` makes with the queue's
`users`, each `{id, status}`, the one agent's status changed and the others' kept."""

from __future__ import annotations

from typing import Any

from ..documents import reads
from ..domain.errors import Unknown
from ..eventlog import Decision, NewEvent
from ..eventlog.connection import Connection
from .catalogue import BY_PATH
from .decisions import update

QUEUES = BY_PATH["queues"]


def agent_logged(customer_id: int, queue_id: int, user_id: int, logged_in: bool, now: str) -> Decision[list[dict]]:
    """The queue's update with `user_id` logged in (or out); the members are read in the transaction,
    so two clicks at once both count. Unknown when the queue is not the customer's or the user is not
    one of its agents."""

    def decide(conn: Connection) -> tuple[list[NewEvent], list[dict[str, Any]]]:
        queue = reads.documents(conn, QUEUES.kind, [queue_id], customer_id).get(queue_id)
        members = [m if isinstance(m, dict) else {"id": m, "status": True} for m in (queue or {}).get("users") or ()]
        if queue is None or all(m["id"] != user_id for m in members):
            raise Unknown(f"User {user_id} is not an agent of queue {queue_id}")
        users = [{**m, "status": logged_in} if m["id"] == user_id else m for m in members]
        changed = update(QUEUES, customer_id, {queue_id: {"users": users}}, None, now)
        return list(changed(conn)), changed.result

    return Decision(decide)
