"""The number a message from outside is sent to: one of a customer's numbers, which must take it."""

from __future__ import annotations

from typing import Any

import msgspec

from ..api.errors import BadRequest, NotFound
from ..documents import reads
from ..documents.listing import ReadStore
from ..domain import phone
from ..domain.nouns import not_found


async def receiving_number(reader: ReadStore, to: str, takes: str, what: str) -> tuple[int, dict[str, Any]]:
    """The customer and the record of the number `to`, which must take messages of its flag `takes`
    (`sms_enabled`, `fax_enabled`): a number nobody has is a 404, one that does not take `what` (SMS,
    faxes) a 400 naming `to`."""
    dialled = phone.e164(to)
    owner = await reads.owned_by(reader, "ddi", dialled)
    if owner is None:
        raise NotFound(not_found("ddi", dialled))
    customer_id, ddi = owner[0], msgspec.json.decode(owner[1])
    if not ddi.get(takes):
        raise BadRequest.field("to", f"The number {dialled} does not receive {what}.")
    return customer_id, ddi
