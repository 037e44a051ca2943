-- Objects looked up by name under their parents in bulk (a batch-check's
-- namespaces and tables by name), names compared first: the same index as
-- on SQLite, so both catalogs keep one layout.
CREATE INDEX securables_by_name ON securables (name, parent_id, kind, id, owner);
