"""What SQLite's SQL in the read models needs from PostgreSQL, made once per schema (under the commit
lock, with the tables): its functions and the comparisons of its dynamically typed values.

On SQLite a document's property (`json_extract` or a column that holds it) has the type its JSON value
has; here it is `jsonb` (`pg_documents`). A value bound for it is text, a number or a boolean, so
`=`, `<>`, `<`, `<=`, `>`, `>=` are defined between `jsonb` and each of those types, comparing the
bound value made `jsonb`: a number equals a number, text equals text, and they order as `jsonb` does.
Every `prop = ?`, `IN`, `BETWEEN` written for SQLite then means the same here (text is bound as
`text`, not psycopg's untyped literal: `PgConnection`). SQLite's `json_extract(body, '$.prop')`,
`json_insert(array, '$[#]', text)`, `ltrim`, `json_each`, two-argument `max`, `like(pattern, value)`
(folding ASCII letters only, as SQLite's LIKE; PostgreSQL's own `like(text, text)` takes its
arguments the other way round, so `unicode_lower` of a property gives `jsonb`) and `unicode_lower`
(folding every alphabet) exist with SQLite's meaning; a JSON `null` is SQL's NULL, as
`json_extract` gives it. SQLite's `BLOB` type and its `sqlite_master` (the names) exist too.

No text here can hold a NUL, so the reader binds a filter's text that holds one as `bytea` (its
UTF-8), and the comparisons with `bytea` answer what SQLite's do for the text, against values that
hold no NUL: nothing equals it, and it sorts just after the text before its first NUL (the prefix);
`like` reads a pattern up to its first NUL, as SQLite's (C strings) does."""

from __future__ import annotations

from typing import Any

UPPER, LOWER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"
ASCII_LOWER, TEXT = f"translate(%s, '{UPPER}', '{LOWER}')", "$2 #>> '{}'"
FUNCTIONS = (
    "json_extract(jsonb, text) RETURNS jsonb AS $$ SELECT nullif(CASE WHEN $2 = '$' THEN $1 "
    "ELSE $1 -> substr($2, 3) END, 'null') $$",
    "json_extract(text, text) RETURNS jsonb AS $$ SELECT json_extract($1::jsonb, $2) $$",
    "ltrim(jsonb, text) RETURNS text AS $$ SELECT ltrim($1 #>> '{}', $2) $$",
    f'"like"(text, jsonb) RETURNS boolean AS $$ SELECT {ASCII_LOWER % TEXT} LIKE {ASCII_LOWER % "$1"} $$',
    "unicode_lower(jsonb) RETURNS jsonb AS $$ SELECT to_jsonb(lower($1 #>> '{}')) $$",
    "unicode_lower(text) RETURNS text AS $$ SELECT lower($1) $$",
    "json_insert(text, text, text) RETURNS text AS $$ SELECT CASE WHEN $2 = '$[#]' "
    "THEN ($1::jsonb || to_jsonb($3))::text END $$",
    "max(bigint, bigint) RETURNS bigint AS $$ SELECT greatest($1, $2) $$",
    "json_each(text, text) RETURNS TABLE (value jsonb, type text) AS $$ SELECT e, jsonb_typeof(e) FROM "
    "jsonb_array_elements(CASE WHEN jsonb_typeof(json_extract($1, $2)) = 'array' THEN json_extract($1, $2) "
    "ELSE '[]' END) AS e $$",
)
SCHEMA_OBJECTS = (
    "CREATE DOMAIN blob AS bytea",
    "CREATE VIEW sqlite_master AS SELECT relname::text AS name FROM pg_class "
    "WHERE relnamespace = current_schema()::regnamespace",
)
"""SQLite's `BLOB` type, and the names of the schema's tables as SQLite's `sqlite_master` gives them."""
OPERATORS = {"=": "=", "<>": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
BOUND = {"text": "to_jsonb($2)", "smallint": "to_jsonb($2)", "integer": "to_jsonb($2)", "bigint": "to_jsonb($2)",
         "numeric": "to_jsonb($2)", "double precision": "to_jsonb($2)", "boolean": "to_jsonb($2)"}  # fmt: skip
"""The types a bound value may have here, and how it is made `jsonb`."""
PREFIX = "convert_from(substring(%s from 1 for position('\\x00'::bytea in %s) - 1), 'UTF8')"
"""The text of a `bytea` bound for a text with a NUL, up to its first NUL."""
BEFORE_NUL = {"=": "$1 <= {p} AND $1 > {p}", "<>": "$1 <= {p} OR $1 > {p}", "<": "$1 <= {p}", "<=": "$1 <= {p}",
              ">": "$1 > {p}", ">=": "$1 > {p}"}  # fmt: skip
"""Each comparison with a text that holds a NUL, as one with its prefix `p`."""


def _operator(left: str, right: str, op: str, body: str) -> list[str]:
    function = f"{left}_{right.replace(' ', '_')}_{['eq', 'ne', 'lt', 'le', 'gt', 'ge'][list(OPERATORS).index(op)]}"
    return [f"CREATE OR REPLACE FUNCTION {function}({left}, {right}) RETURNS boolean LANGUAGE sql "
            f"IMMUTABLE AS $$ SELECT {body} $$",
            f"CREATE OPERATOR {op} (LEFTARG = {left}, RIGHTARG = {right}, FUNCTION = {function})"]  # fmt: skip


def _with_nul() -> list[str]:
    """The comparisons and `like` of a text with a NUL, bound as `bytea`."""
    prefix = PREFIX % ("$2", "$2")
    made = [f'CREATE OR REPLACE FUNCTION "like"(bytea, jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$ '
            f"SELECT like({PREFIX % ('$1', '$1')}, $2) $$"]  # fmt: skip
    for left, p in (("jsonb", f"to_jsonb({prefix})"), ("text", prefix)):
        for op, body in BEFORE_NUL.items():
            made += _operator(left, "bytea", op, body.format(p=p))
    return made


def statements() -> list[str]:
    """Every statement that makes the functions and operators, in order."""
    made = [
        *SCHEMA_OBJECTS,
        *(f"CREATE OR REPLACE FUNCTION {signature} LANGUAGE sql IMMUTABLE" for signature in FUNCTIONS),
    ]
    for type_, bound in BOUND.items():
        for op, sql_op in OPERATORS.items():
            made += _operator("jsonb", type_, op, f"$1 {sql_op} {bound}")
    return [*made, *_with_nul()]


def install(conn: Any) -> None:
    """Make them in the current schema, unless they are there (those of a NUL alone in a schema made before them)."""
    found = conn.execute("SELECT proname FROM pg_proc WHERE proname IN ('jsonb_text_eq', 'jsonb_bytea_eq') "
                         "AND pronamespace = current_schema()::regnamespace")  # fmt: skip
    there = {row[0] for row in found}
    if "jsonb_text_eq" not in there:
        for statement in statements():
            conn.execute(statement)
    elif "jsonb_bytea_eq" not in there:
        for statement in _with_nul():
            conn.execute(statement)
