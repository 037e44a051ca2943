-- The recipients a share is granted to (SELECT on the share): both ends
-- are securables, so that a deleted share or recipient takes its grants
-- with it and a renamed one keeps them.
CREATE TABLE share_recipients (
    share_id     TEXT NOT NULL REFERENCES securables (id) ON DELETE CASCADE,
    recipient_id TEXT NOT NULL REFERENCES securables (id) ON DELETE CASCADE,
    granted_at   BIGINT NOT NULL,
    granted_by   TEXT NOT NULL,
    PRIMARY KEY (share_id, recipient_id)
);
-- What a recipient may read, for the sharing server.
CREATE INDEX share_recipients_by_recipient ON share_recipients (recipient_id);
