package api

import (
	"context"

	"github.com/harvester-dev/harvester/store"
)

// The API's JSON views, for other front ends (the harvester command's --format json) to print
// the same fields under the same names as the API does, so that scripts can move between them.

// Source is a harvest source as GET /api/v1/harvest_sources/{id} answers it.
type Source = sourceJSON

// SourceOf is src as the API shows it (its auth header's value masked).
func SourceOf(src *store.Source) Source { return sourceOf(src) }

// Job is a harvest job as GET /api/v1/harvest_jobs/{id} answers it, with its live counts.
type Job = jobJSON

// JobOf is j as the API shows it, reading st as the API does: a job in error gets its newest
// job error, a complete one whether its source answered 304; an error is the store's.
func JobOf(ctx context.Context, st store.Store, j *store.HarvestJob) (Job, error) {
	return (&server{store: st}).jobOf(ctx, j)
}

// Duplicate is a cross-source duplicate as GET /api/v1/cross_source_duplicates lists it.
type Duplicate = duplicateJSON

// DuplicateOf is d as the API shows it.
func DuplicateOf(d *store.CrossSourceDuplicate) Duplicate { return duplicateOf(d) }
