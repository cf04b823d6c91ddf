"""Inbound faxes: their records, PDFs and mails, and the numbers that take them."""

from __future__ import annotations

import io

import pypdf

from tests.accounts.helpers import CONTROL
from tests.calls.helpers import get
from tests.calls.test_voicemail_mail import settled

HOME = 100001
FAX_LINE = "+442071230999"


async def provision(client, **fields) -> None:
    response = await client.post(f"/_telephony/customers/{HOME}/ddis", json={"e164": FAX_LINE, **fields},
                                 headers=CONTROL)  # fmt: skip
    assert response.status == 201, await response.text()


async def fax(client, status: int = 201, **body) -> dict:
    response = await client.post("/_telephony/simulate/inbound-fax", json={"from": "+33123456789", "to": FAX_LINE,
                                 **body}, headers=CONTROL)  # fmt: skip
    answer = await response.json()
    assert response.status == status, answer
    return answer


async def test_a_fax_received_on_a_fax_number_is_a_record_a_pdf_and_a_mail(client, root):
    await provision(client, fax_enabled=True, fax_email="faxes@example.com")
    record = (await fax(client, pages=3))["data"]
    assert (record["pages"], record["status"], record["type"], record["to"]) == (3, 4, 1, FAX_LINE)
    assert (await get(client, root, "/faxes"))["data"] == [record]
    response = await client.get(f"/v1.2/voipstudio/faxes/{record['id']}.pdf", headers=root.headers())
    assert response.content_type == "application/pdf"
    document = pypdf.PdfReader(io.BytesIO(body := await response.read()))
    assert len(document.pages) == 3 and "Page 3 of 3" in document.pages[2].extract_text()
    await settled(client)
    (mail,) = (await (await client.get("/_telephony/outbox?to=faxes@example.com", headers=CONTROL)).json())["data"]
    (attached,) = mail["attachments"]
    assert (attached["media_type"], attached["size"], attached["filename"]) == ("application/pdf", len(body),
                                                                                 record["filename"])  # fmt: skip


async def test_faxes_only_reach_numbers_that_take_them(client, root):
    assert (await fax(client, 404))["errors"]
    await provision(client)
    assert (await fax(client, 400))["errors"][0]["field"] == "to"
    assert (await fax(client, 400, pages=0))["errors"][0]["field"] == "pages"
