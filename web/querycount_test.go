package web

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// countingStore counts the store calls the pages make (each is one round trip, or two for a
// paged list's count and rows: a constant either way).
type countingStore struct {
	store.Store
	mu    sync.Mutex
	calls int
}

func (c *countingStore) count() {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
}

func (c *countingStore) take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.calls
	c.calls = 0
	return n
}

func (c *countingStore) OrganizationList(ctx context.Context, p *store.PageParams) ([]*store.Organization, int, error) {
	c.count()
	return c.Store.OrganizationList(ctx, p)
}

func (c *countingStore) OrganizationDatasetCount(ctx context.Context, id string) (int, error) {
	c.count()
	return c.Store.OrganizationDatasetCount(ctx, id)
}

func (c *countingStore) OrganizationGet(ctx context.Context, id string) (*store.Organization, error) {
	c.count()
	return c.Store.OrganizationGet(ctx, id)
}

func (c *countingStore) SourceSummaryList(ctx context.Context, p *store.SourceSummaryListParams) ([]*store.SourceSummary, int, error) {
	c.count()
	return c.Store.SourceSummaryList(ctx, p)
}

func (c *countingStore) SourceGet(ctx context.Context, id string) (*store.Source, error) {
	c.count()
	return c.Store.SourceGet(ctx, id)
}

func (c *countingStore) SourceList(ctx context.Context, p *store.SourceListParams) ([]*store.Source, int, error) {
	c.count()
	return c.Store.SourceList(ctx, p)
}

func (c *countingStore) DatasetCount(ctx context.Context, id string) (int, error) {
	c.count()
	return c.Store.DatasetCount(ctx, id)
}

func (c *countingStore) DatasetGet(ctx context.Context, p *store.DatasetGetParams) (*store.Dataset, error) {
	c.count()
	return c.Store.DatasetGet(ctx, p)
}

func (c *countingStore) JobList(ctx context.Context, p *store.JobListParams) ([]*store.HarvestJob, int, error) {
	c.count()
	return c.Store.JobList(ctx, p)
}

func (c *countingStore) JobCountsSince(ctx context.Context, since time.Time) ([]*store.JobCount, error) {
	c.count()
	return c.Store.JobCountsSince(ctx, since)
}

func (c *countingStore) JobErrorListSince(ctx context.Context, since time.Time, limit int) ([]*store.JobError, error) {
	c.count()
	return c.Store.JobErrorListSince(ctx, since, limit)
}

func (c *countingStore) JobGet(ctx context.Context, id string) (*store.HarvestJob, error) {
	c.count()
	return c.Store.JobGet(ctx, id)
}

func (c *countingStore) JobErrorList(ctx context.Context, id string) ([]*store.JobError, error) {
	c.count()
	return c.Store.JobErrorList(ctx, id)
}

func (c *countingStore) JobFetchGet(ctx context.Context, id string) (*store.JobFetch, error) {
	c.count()
	return c.Store.JobFetchGet(ctx, id)
}

func (c *countingStore) RecordErrorSummary(ctx context.Context, id string) ([]*store.RecordErrorCount, error) {
	c.count()
	return c.Store.RecordErrorSummary(ctx, id)
}

func (c *countingStore) RecordErrorList(ctx context.Context, p *store.RecordErrorListParams) ([]*store.RecordError, int, error) {
	c.count()
	return c.Store.RecordErrorList(ctx, p)
}

func (c *countingStore) RecordGet(ctx context.Context, id string) (*store.HarvestRecord, error) {
	c.count()
	return c.Store.RecordGet(ctx, id)
}

func (c *countingStore) RecordHistory(ctx context.Context, p *store.RecordHistoryParams) ([]*store.HarvestRecord, int, error) {
	c.count()
	return c.Store.RecordHistory(ctx, p)
}

func (c *countingStore) CrossSourceDuplicateList(ctx context.Context, p *store.CrossSourceDuplicateListParams) (
	[]store.CrossSourceDuplicate, int, error) {
	c.count()
	return c.Store.CrossSourceDuplicateList(ctx, p)
}

// TestQueryCounts: a page's store calls do not grow with the rows it shows.
func TestQueryCounts(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		cs := &countingStore{Store: st}
		b := newSite(t, cs).browser(t)
		pages := []string{"/harvest_sources?organization_id=" + f.org.ID, "/organizations/" + f.org.ID,
			"/harvest_sources/" + f.src.ID, "/harvest_jobs/" + f.job1.ID, "/organizations", "/dashboard"}
		measure := func() map[string]int {
			m := map[string]int{}
			for _, p := range pages {
				cs.take()
				code, body := b.get(p)
				require.Equal(t, http.StatusOK, code, body)
				m[p] = cs.take()
			}
			return m
		}
		before := measure()
		ctx := t.Context()
		for i := range 12 { // more sources, jobs and record errors
			src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: f.org.ID, Name: "More " + itoa(i),
				URL: "https://example.gov/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
				SchemaType: harvest.SchemaDCATUS11Federal})
			require.NoError(t, err)
			job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
			require.NoError(t, err)
			_ = job
			_, err = st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Org " + itoa(i), Slug: "org-" + uuid.NewString()[:8]})
			require.NoError(t, err)
		}
		j, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		for i := range 12 {
			k := "e" + itoa(i)
			_, _, err := st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: j.ID, Key: k, Identifier: k,
				Outcome: harvest.OutcomeErrored, Errors: []harvest.RecordError{{Type: "Type" + itoa(i%4), Message: "m",
					Severity: harvest.SeverityError}}})
			require.NoError(t, err)
		}
		pages = append(pages[:3], "/harvest_jobs/"+j.ID, "/organizations", "/dashboard")
		after := measure()
		require.Equal(t, before["/harvest_sources?organization_id="+f.org.ID], after["/harvest_sources?organization_id="+f.org.ID])
		require.Equal(t, before["/organizations/"+f.org.ID], after["/organizations/"+f.org.ID])
		require.Equal(t, before["/harvest_sources/"+f.src.ID], after["/harvest_sources/"+f.src.ID])
		require.Equal(t, before["/harvest_jobs/"+f.job1.ID], after["/harvest_jobs/"+j.ID], "4 error groups cost what 1 did")
		require.Equal(t, before["/organizations"], after["/organizations"])
		require.Equal(t, before["/dashboard"], after["/dashboard"])
		for p, n := range after {
			limit := 6
			switch {
			case p == "/dashboard": // organizations, sources, jobs, counts, errors, running, queued
				limit = 7
			case strings.HasPrefix(p, "/harvest_jobs/"): // job, its job errors, source, error summary,
				limit = 7 // errors, warnings, the cross-source duplicates it found
			}
			require.LessOrEqual(t, n, limit, "%s makes %d store calls", p, n)
		}
	})
}
