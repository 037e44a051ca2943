-- Managed roots are checked for overlap with each other when a catalog or
-- schema is created: a range scan over storage_root, and over the
-- locations of staging tables, compared as bytes like the normal forms
-- they hold.
CREATE INDEX securables_by_root ON securables (storage_root COLLATE "C");
CREATE INDEX staging_tables_by_location ON staging_tables (location COLLATE "C");
