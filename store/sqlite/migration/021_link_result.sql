-- +goose Up
-- Kept in step with store/postgres/migration/021_link_result.sql: the latest check of each
-- distribution URL (check.Stored).
CREATE TABLE link_result (
    url                  TEXT PRIMARY KEY,
    status               INTEGER NOT NULL,
    error_class          TEXT NOT NULL,
    error                TEXT NOT NULL,
    final_url            TEXT NOT NULL,
    content_type         TEXT NOT NULL,
    content_length       INTEGER NOT NULL,
    redirects            INTEGER NOT NULL,
    ok                   INTEGER NOT NULL,
    checked_at           TEXT NOT NULL,
    last_ok_at           TEXT,
    consecutive_failures INTEGER NOT NULL
);

-- +goose Down
DROP TABLE link_result;
