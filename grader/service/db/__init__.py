"""The course server's store: SQLite or PostgreSQL opened and migrated (store, schema,
migrations/), SQLite's one writer for uploads (group_commit), and backups and copies of it.

The bottom of service/: it imports only core/ and itself.
"""
