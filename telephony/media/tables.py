"""A table as a file: CSV, XLSX (openpyxl) or PDF (fpdf2), for scheduled reports.

openpyxl is the maintained, pure Python writer of Office Open XML workbooks, which spreadsheet
programs and readers open; the PDF is fpdf2's (`media.pdf`).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Sequence
from typing import Any

from .pdf import table_pdf

MEDIA_TYPES = {"csv": "text/csv", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
               "pdf": "application/pdf"}  # fmt: skip
SHEET_TITLE = 31
"""The longest title a spreadsheet's sheet may have (Excel's limit)."""
_NOT_IN_SHEET_TITLE = re.compile(r"(?:\s*[\\/*?:\[\]])+\s*")
"""Characters a sheet's title may not hold, with the spaces around them."""


def sheet_title(title: str) -> str:
    """A title as a sheet's: each run of the characters a sheet's title may not hold becomes " - ", and
    a title too long ends at the last whole word that fits (mid-word only when one word is longer)."""
    text = " ".join(_NOT_IN_SHEET_TITLE.sub(" - ", title).split()).strip(" -'")
    if len(text) > SHEET_TITLE:
        head = text[: SHEET_TITLE + 1]
        text = (head.rsplit(" ", 1)[0] if " " in head else head[:SHEET_TITLE]).rstrip(" -'")
    return text or "Report"


def rendered(
    kind: str, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], moment: dt.datetime
) -> bytes:
    """The table as a `kind` file (csv, xlsx or pdf), dated `moment`."""
    if kind == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(columns)
        writer.writerows(rows)
        return out.getvalue().encode()
    if kind == "xlsx":
        from openpyxl import Workbook  # imported when a workbook is written, not at the server's start-up

        book = Workbook()
        sheet = book.active
        sheet.title = sheet_title(title)
        sheet.append(list(columns))
        for row in rows:
            sheet.append(list(row))
        book.properties.created = book.properties.modified = moment.replace(tzinfo=None)
        buffer = io.BytesIO()
        book.save(buffer)
        return buffer.getvalue()
    return table_pdf(title, moment, columns, rows)
