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
`json_extract` gives it. SQLite's `BLOB` type and its `sqlite_master` (the names) exist too."""

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


def statements() -> list[str]:
    """Every statement that makes the functions and operators, in order."""
    made = [
        *SCHEMA_OBJECTS,
        *(f"CREATE OR REPLACE FUNCTION {signature} LANGUAGE sql IMMUTABLE" for signature in FUNCTIONS),
    ]
    for type_, bound in BOUND.items():
        name = type_.replace(" ", "_")
        for op, sql_op in OPERATORS.items():
            function = f"jsonb_{name}_{['eq', 'ne', 'lt', 'le', 'gt', 'ge'][list(OPERATORS).index(op)]}"
            made.append(f"CREATE OR REPLACE FUNCTION {function}(jsonb, {type_}) RETURNS boolean LANGUAGE sql "
                        f"IMMUTABLE AS $$ SELECT $1 {sql_op} {bound} $$")  # fmt: skip
            made.append(f"CREATE OPERATOR {op} (LEFTARG = jsonb, RIGHTARG = {type_}, FUNCTION = {function})")
    return made


def install(conn: Any) -> None:
    """Make them in the current schema, unless they are there."""
    there = conn.execute("SELECT 1 FROM pg_proc WHERE proname = 'jsonb_text_eq' "
                         "AND pronamespace = current_schema()::regnamespace").fetchone()  # fmt: skip
    if there is None:
        for statement in statements():
            conn.execute(statement)
