-- +goose Up
-- How often the scheduler re-drove a job in progress that stopped making progress (its
-- messages lost with a dead worker or a broker that lost acknowledged writes): the job is
-- listed again from Postgres a bounded number of times before it is failed.
ALTER TABLE harvest_job ADD COLUMN redrives integer NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE harvest_job DROP COLUMN redrives;
