-- +goose Up
-- Kept in step with store/postgres/migration/019_database_identity.sql: the database's identity,
-- one random id made once, here (a UUID version 4, as Postgres's gen_random_uuid makes), that
-- every process of a deployment reads (store.Store.DatabaseID). The deployment's NATS streams
-- are stamped with it (router.StampKey), so that a deployment with another database on the same
-- NATS prefix is refused at start. A copy of the file keeps the id.
CREATE TABLE database_identity (
    id  TEXT NOT NULL,
    one INTEGER PRIMARY KEY DEFAULT 1 CHECK (one = 1)
);
INSERT INTO database_identity (id) VALUES (lower(
    hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
    substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))));

-- +goose Down
DROP TABLE database_identity;
