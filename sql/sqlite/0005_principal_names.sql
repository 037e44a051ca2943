-- Principal names are compared and stored trimmed of spaces, with ASCII
-- letters in lower case (SQLite's lower() folds ASCII only, as the module
-- does). Grants that then name the same principal twice are kept once.
INSERT OR IGNORE INTO grants (securable_id, principal, privilege, granted_by,
                              granted_at)
SELECT securable_id, lower(trim(principal, ' ')), privilege, granted_by,
       granted_at
FROM grants WHERE principal <> lower(trim(principal, ' '));
DELETE FROM grants WHERE principal <> lower(trim(principal, ' '));
UPDATE securables SET owner = lower(trim(owner, ' '))
WHERE owner <> lower(trim(owner, ' '));
UPDATE staging_tables SET created_by = lower(trim(created_by, ' '))
WHERE created_by <> lower(trim(created_by, ' '));
