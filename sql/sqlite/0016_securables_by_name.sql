-- Objects looked up by name under their parents in bulk (a batch-check's
-- namespaces and tables by name): the unique index of 0001 orders by
-- parent first, so each probe compared the 36-character parent id, equal
-- for every sibling, before the name. This one compares names first and
-- holds the other columns the lookup returns but the details, so a
-- schema's row is not read at all (a batch of a thousand no longer goes
-- through the table's pages); the bulk lookup names it (INDEXED BY), and
-- the planner keeps 0001's index for pages and single lookups.
CREATE INDEX securables_by_name ON securables (name, parent_id, kind, id, owner);
