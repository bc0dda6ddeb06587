-- +goose Up
-- The web UI's sessions (package web), so that signing out ends a session in every process:
-- id is a digest of the secret the session cookie carries. Expired rows are deleted when the
-- next session is inserted.
CREATE TABLE web_session (
    id         TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE web_session;
