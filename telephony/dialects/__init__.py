"""The read models on PostgreSQL: what their SQL needs there, and what must differ from SQLite's.

The projections and reads are written once, in the SQL both engines share; `pg_functions` gives
PostgreSQL the functions and comparisons of SQLite's that SQL uses, a PostgreSQL log applies the
projections' PostgreSQL forms (`pg_documents.on_postgresql`), and GET handlers read through
`pg_reader`."""
