-- Privileges granted to users or groups on securables. Ownership is the
-- securables.owner column, not a grant. Grants go with their securable.
CREATE TABLE grants (
    securable_id TEXT NOT NULL REFERENCES securables (id) ON DELETE CASCADE,
    principal    TEXT NOT NULL,
    privilege    TEXT NOT NULL,
    granted_by   TEXT NOT NULL,
    granted_at   BIGINT NOT NULL,
    PRIMARY KEY (securable_id, principal, privilege)
);
CREATE INDEX grants_by_principal ON grants (principal, securable_id);

-- Every change of grants or ownership: who, what, when. Kept when the
-- securable goes, so it names the securable rather than pointing at it.
CREATE TABLE authz_audit (
    id             BIGSERIAL PRIMARY KEY,
    at             BIGINT NOT NULL,
    actor          TEXT NOT NULL,
    action         TEXT NOT NULL,
    securable_type TEXT NOT NULL,
    securable_id   TEXT NOT NULL,
    securable_name TEXT NOT NULL,
    principal      TEXT NOT NULL,
    privilege      TEXT
);
