-- +goose Up
-- Kept in step with store/sqlite/migration/019_database_identity.sql: the database's identity,
-- one random id made once, here, that every process of a deployment reads (store.Store.DatabaseID)
-- however its DATABASE_URL is spelled. The deployment's NATS streams are stamped with it
-- (router.StampKey), so that a deployment with another database on the same NATS prefix is
-- refused at start. A copy of the database (pg_dump and restore) keeps the id: give a copy that
-- runs beside the original its own NATS prefix.
CREATE TABLE database_identity (
    id  TEXT NOT NULL,
    one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one)
);
INSERT INTO database_identity (id) VALUES (gen_random_uuid()::text);

-- +goose Down
DROP TABLE database_identity;
