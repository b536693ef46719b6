"""One module per schema revision, each file named after its revision id, oldest first along
their `down_revision` chain, which is linear.

The ids are the ones stores in the field hold in alembic_version, so a released id never
changes: the first two are "0001" and "0002", "v0004_i31" is one id (its second part is part of
the name, not a reference), and it comes before "v0004_pages_deadlines_audit". A new revision
is named "vNNNN_what_it_changes", its file after it, and points at the newest as its
down_revision.
"""
