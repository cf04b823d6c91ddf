"""PDF documents the API serves: faxes (one page per fax page) and invoices, drawn with fpdf2.

fpdf2 is pure Python, kept up to date, and writes valid PDF (fonts, pages, tables) with no system
library; PDF is too intricate to write by hand beyond a page of text. Every document is the same
bytes for the same record: its dates are the record's, never the time of drawing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..clock import parse_wire_time

if TYPE_CHECKING:
    from fpdf import FPDF

LETTER_MARGIN = 20
MOST_PAGES = 500
UNITS = {"call": "s", "sms": " parts"}
"""How an invoice line's quantity is counted, by its kind."""
SERVICES = {"call": "Calls", "sms": "SMS"}


def _document(title: str, moment: dt.datetime) -> FPDF:
    from fpdf import FPDF  # imported when a document is drawn: a quarter of a second the server's start-up saves

    pdf = FPDF(format="A4", unit="mm")
    pdf.set_creation_date(moment)
    pdf.set_title(title)
    pdf.set_producer("telephony")
    pdf.set_creator("telephony")
    pdf.set_margins(LETTER_MARGIN, LETTER_MARGIN)
    pdf.set_auto_page_break(True, LETTER_MARGIN)
    return pdf


def _moment(text: str | None) -> dt.datetime:
    """A wire time (`YYYY-MM-DD HH:MM:SS`, UTC) as the document's date; the epoch when it is none."""
    try:
        return parse_wire_time(str(text))
    except ValueError:
        return dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _text(value: object) -> str:
    """Text the core fonts can draw (Latin-1): other characters become `?`."""
    return str(value if value is not None else "").encode("latin-1", "replace").decode("latin-1")


def fax(record: dict) -> bytes:
    """A received fax: `pages` pages (at least one), each headed with who sent it to whom, and when."""
    try:
        pages = max(1, min(int(record.get("pages") or 1), MOST_PAGES))
    except (TypeError, ValueError):
        pages = 1
    title = f"Fax {record.get('id')}"
    pdf = _document(title, _moment(record.get("created_at")))
    for page in range(1, pages + 1):
        _page(pdf, title, [f"From: {record.get('from') or ''}", f"To: {record.get('to') or ''}",
                           f"Received: {record.get('created_at') or ''} UTC", f"Page {page} of {pages}"])  # fmt: skip
    return bytes(pdf.output())


def _page(pdf: FPDF, title: str, lines: Sequence[str]) -> None:
    """A new page headed by `title` and a few lines of text."""
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 10, _text(title), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 11)
    for line in lines:
        pdf.cell(0, 7, _text(line), new_x="LMARGIN", new_y="NEXT")


@dataclass(frozen=True)
class Invoice:
    """What an invoice (or a receipt of a top-up) shows: who, which month (a receipt: none), when it
    was issued (a receipt: the date of its credit), the lines and the total."""

    title: str
    number: int
    customer: str
    customer_id: int
    period: str | None
    issued: str
    currency: str
    lines: Sequence[dict]
    total: float


def invoice(doc: Invoice) -> bytes:
    """A monthly invoice (its period, a table of the month's calls and SMS per destination, and its
    total), or the receipt of a top-up or an adjustment (its date and its one line)."""
    title = f"{doc.title} {doc.number}"
    pdf = _document(title, _moment(doc.issued))
    dated = [f"Period: {doc.period}", f"Issued: {doc.issued} UTC"] if doc.period else [f"Date: {doc.issued} UTC"]
    _page(pdf, title, [f"Customer: {doc.customer} (account {doc.customer_id})", *dated, f"Currency: {doc.currency}"])
    pdf.ln(4)
    rows: list[Iterable[str]] = [("Service", "Destination", "Count", "Quantity", f"Amount ({doc.currency})")]
    for item in doc.lines:
        rows.append((SERVICES.get(item["kind"], item["kind"].capitalize()), item["destination"], str(item["count"]),
                     f"{item['quantity']}{UNITS.get(item['kind'], '')}", f"{item['amount']:.4f}"))  # fmt: skip
    rows.append(("", "Total", "", "", f"{doc.total:.4f}"))
    pdf.set_font("Helvetica", "", 10)
    with pdf.table(col_widths=(20, 60, 20, 30, 40), text_align=("LEFT", "LEFT", "RIGHT", "RIGHT", "RIGHT")) as table:
        for row in rows:
            cells = table.row()
            for cell in row:
                cells.cell(_text(cell))
    return bytes(pdf.output())


def table_pdf(title: str, moment: dt.datetime, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> bytes:
    """A report: its title and date, then a table of its rows (landscape, small type)."""
    pdf = _document(title, moment)
    pdf.add_page(orientation="L")
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 10, _text(title), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 7)
    with pdf.table() as table:
        for row in [columns, *rows]:
            cells = table.row()
            for cell in row:
                cells.cell(_text("" if cell is None else cell))
    return bytes(pdf.output())
