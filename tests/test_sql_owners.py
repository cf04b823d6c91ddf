"""SQL and the names of projection tables appear only in the modules that own the tables.

Those are the projection modules: the event log, `projections/`, `documents/`, reactor tracking,
`audit` and `cli` (which open a data dir offline), and each capability's `projections.py` (or
`projections/` package). Every
other module reads through the read functions they export, by resource kind. Checked over every
module's syntax tree: no string (an f-string's text included, documentation aside) may hold an SQL
statement, written in capitals as everywhere here, or be the name of a projection table.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from .test_layers import TELEPHONY, tree

OWNERS = ("eventlog/", "projections/", "documents/", "reactors/tracking.py", "audit/", "cli/")
"""The projection modules, by path under telephony/; and every `projections.py`."""
TABLES = frozenset({"credentials", "tokens", "api_tokens", "customers", "outbox", "blobs", "challenges", "resets"})
DOCUMENT_TABLE = re.compile(r"\bdoc_\w")
STATEMENT = re.compile(
    r"\b(SELECT\b.*\bFROM|INSERT\b.*\bINTO|UPDATE\b.*\bSET|DELETE\s+FROM|(CREATE|DROP)\s+(TABLE|VIEW|INDEX))\b", re.S
)
SAME_WORDS = {
    "telephony/registry/transfer.py": frozenset({"customers", "blobs"}),  # record kinds of the import format
    "telephony/registry/loading.py": frozenset({"customers", "blobs"}),
    "telephony/registry/exporting.py": frozenset({"customers", "blobs"}),
    "telephony/mail.py": frozenset({"outbox"}),  # the transport that keeps mail in the outbox
}
"""Literals spelled like a table that name something else, by module."""


def owns_tables(file: str) -> bool:
    """A projection module: under one of `OWNERS`, or a capability's `projections.py` or `projections/`."""
    in_owner = file.removeprefix("telephony/").startswith(OWNERS)
    return in_owner or Path(file).name == "projections.py" or "/projections/" in file


def strings(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of every string of a module but its documentation; an f-string's holes are `{}`."""
    skipped: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skipped.add(id(node.value))
        elif isinstance(node, ast.JoinedStr):
            parts = [v.value if isinstance(v, ast.Constant) else "{}" for v in node.values]
            skipped.update(id(v) for v in node.values)
            yield node.lineno, "".join(str(part) for part in parts)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            yield node.lineno, node.value


def check(root: Path) -> list[str]:
    """Every string outside the projection modules that is SQL or a table name, by file and line."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        file = path.relative_to(root.parent).as_posix()
        if owns_tables(file):
            continue
        for line, text in sorted(strings(path)):
            if STATEMENT.search(text):
                problems.append(f"{file}:{line}: SQL outside the projection modules: {text[:60]!r}")
            elif DOCUMENT_TABLE.search(text) or (text.strip('" ') in TABLES - SAME_WORDS.get(file, frozenset())):
                problems.append(f"{file}:{line}: a projection table named outside its module: {text[:60]!r}")
    return problems


def test_only_the_projection_modules_hold_sql_or_table_names():
    problems = check(TELEPHONY)
    assert not problems, "\n".join(problems)


def test_each_word_spelled_like_a_table_is_still_used():
    root = TELEPHONY.parent
    stale = [(file, word) for file, words in SAME_WORDS.items() for word in words
             if word not in {text for _, text in strings(root / file)}]  # fmt: skip
    assert not stale, f"remove from SAME_WORDS, these are gone: {stale}"


def test_sql_in_any_string_and_table_names_are_named_but_documentation_is_not(tmp_path):
    files = {
        "registry/handlers.py": (
            '"""Reads `SELECT body FROM doc_contact`."""\n'
            "def one(conn, kind, id_):\n"
            '    """SELECT id FROM doc_x, in words."""\n'
            "    return conn.execute(f'SELECT body FROM \"{kind}\" WHERE id = ?', (id_,))\n"
            'USERS = "doc_user"\n'
            'TOKENS = "tokens"\n'
        ),
        "calls/projections.py": 'SQL = "SELECT 1 FROM doc_call"\n',
        "documents/reads.py": 'SQL = "DELETE FROM blobs"\n',
        "mail.py": 'TRANSPORT = "outbox"\n',
    }
    assert check(tree(tmp_path, files)) == [
        "telephony/registry/handlers.py:4: SQL outside the projection modules: 'SELECT body FROM \"{}\" WHERE id = ?'",
        "telephony/registry/handlers.py:5: a projection table named outside its module: 'doc_user'",
        "telephony/registry/handlers.py:6: a projection table named outside its module: 'tokens'",
    ]
