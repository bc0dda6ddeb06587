-- +goose Up
-- The IANA time zone (e.g. America/New_York) of a WAF source's listing dates where the listing
-- names none; NULL is UTC.
ALTER TABLE harvest_source ADD COLUMN waf_time_zone TEXT;

-- +goose Down
ALTER TABLE harvest_source DROP COLUMN waf_time_zone;
