package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// uuidStore answers list filters as the Postgres store does when an id is not a uuid.
type uuidStore struct{ store.Store }

func (uuidStore) JobList(context.Context, *store.JobListParams) ([]*store.HarvestJob, int, error) {
	return nil, 0, fmt.Errorf("%w: invalid input syntax for type uuid", store.ErrNotFound)
}

func (uuidStore) SourceList(context.Context, *store.SourceListParams) ([]*store.Source, int, error) {
	return nil, 0, fmt.Errorf("%w: invalid input syntax for type uuid", store.ErrNotFound)
}

// TestListFilterNotAUUID: a filter id that is no uuid matches nothing, on Postgres as on
// SQLite, rather than making the list a 404 that the document does not declare.
func TestListFilterNotAUUID(t *testing.T) {
	t.Parallel()
	b := setup(t, func(_ *Config, d *Deps) { d.Store = uuidStore{d.Store} })
	for _, path := range []string{"/api/v1/harvest_jobs?source_id=nope", "/api/v1/harvest_sources?organization_id=nope"} {
		r := b.get(t, path)
		require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
		require.Equal(t, map[string]any{"items": []any{}, "total": 0.0, "page": 1.0, "per_page": 20.0}, r.object(t))
	}
}
