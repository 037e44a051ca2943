-- Principal names are compared and stored trimmed of spaces, with ASCII
-- letters in lower case (translate, not lower(): the module folds ASCII
-- only, whatever the database's locale). Grants that then name the same
-- principal twice are kept once.
INSERT INTO grants (securable_id, principal, privilege, granted_by,
                    granted_at)
SELECT securable_id, translate(btrim(principal, ' '), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), privilege, granted_by, granted_at
FROM grants WHERE principal <> translate(btrim(principal, ' '), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
ON CONFLICT DO NOTHING;
DELETE FROM grants WHERE principal <> translate(btrim(principal, ' '), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
UPDATE securables SET owner = translate(btrim(owner, ' '), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
WHERE owner <> translate(btrim(owner, ' '), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
UPDATE staging_tables SET created_by = translate(btrim(created_by, ' '), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
WHERE created_by <> translate(btrim(created_by, ' '), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
