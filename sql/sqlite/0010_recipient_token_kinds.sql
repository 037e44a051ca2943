-- What a recipient token row holds: 'bearer', a token handed over through
-- an activation link (TOKEN recipients); 'client', the client secret of an
-- OAUTH_CLIENT_CREDENTIALS recipient, handed over the same way, which
-- authenticates only at the token endpoint; 'access', a short-lived
-- bearer token that endpoint issued for a client secret.
ALTER TABLE recipient_tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'bearer';
