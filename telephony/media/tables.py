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
        sheet.title = re.sub(r"[\\/*?:\[\]]", " ", title)[:31]  # what a sheet's title may not hold
        sheet.append(list(columns))
        for row in rows:
            sheet.append(list(row))
        book.properties.created = book.properties.modified = moment.replace(tzinfo=None)
        buffer = io.BytesIO()
        book.save(buffer)
        return buffer.getvalue()
    return table_pdf(title, moment, columns, rows)
