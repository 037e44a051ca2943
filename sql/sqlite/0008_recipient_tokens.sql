-- Bearer tokens of Delta Sharing recipients. Only a keyed hash of a token
-- is kept (HMAC under a MAC key derived from the secret key named by
-- key_id), and until its one-time activation the token itself, sealed, so
-- that the activation link can hand it over once; the link's nonce is kept
-- hashed (to find the row) and sealed (to show the link), all three wiped
-- when it is used. expires_at NULL: the token does not expire.
CREATE TABLE recipient_tokens (
    id                TEXT NOT NULL PRIMARY KEY,
    recipient_id      TEXT NOT NULL
                      REFERENCES securables (id) ON DELETE CASCADE,
    key_id            TEXT NOT NULL,
    token_hash        TEXT NOT NULL UNIQUE,
    activation_hash   TEXT UNIQUE,
    activation_sealed TEXT,
    token_sealed      TEXT,
    activated_at      BIGINT,
    expires_at        BIGINT,
    created_at        BIGINT NOT NULL,
    created_by        TEXT,
    updated_at        BIGINT NOT NULL,
    updated_by        TEXT
);
CREATE INDEX recipient_tokens_of_recipient
    ON recipient_tokens (recipient_id, created_at);
