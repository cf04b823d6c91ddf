"""The read models' SQL where PostgreSQL's differs from SQLite's: document tables and the reader.

The projections and reads are written once, in the SQL both engines share; a PostgreSQL log applies
their PostgreSQL forms (`pg_documents.on_postgresql`) and GET handlers read through `pg_reader`."""
