-- Managed roots are checked for overlap with each other when a catalog or
-- schema is created: a range scan over storage_root.
CREATE INDEX securables_by_root ON securables (storage_root);
