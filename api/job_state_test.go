package api

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/report"
	"github.com/harvester-dev/harvester/store"
)

// TestJobNotModified: a complete job whose source answered 304 says not_modified.
func TestJobNotModified(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	src, job := b.newHarvestJob(t)
	require.NoError(t, b.store.JobFetchSet(ctx, &store.JobFetch{JobID: job.ID, URL: src.URL,
		SchemaType: src.SchemaType, ETag: `"v1"`, NotModified: true}))
	_, err := b.store.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 0})
	require.NoError(t, err)
	_, finished, err := b.store.JobFinish(ctx, job.ID)
	require.NoError(t, err)
	require.True(t, finished)

	got := b.get(t, "/api/v1/harvest_jobs/"+job.ID).object(t)
	requireSchema(t, "HarvestJob", got)
	require.Equal(t, true, got["not_modified"])
	require.Nil(t, got["error"])
	list := b.get(t, "/api/v1/harvest_jobs?source_id="+src.ID).object(t)
	require.Equal(t, true, list["items"].([]any)[0].(map[string]any)["not_modified"])
}

// TestJobConflictNamesBlockingJob: the 409 for a busy source names the job in the way.
func TestJobConflictNamesBlockingJob(t *testing.T) {
	t.Parallel()
	b := setup(t)
	src, id := b.queueJob(t)
	r := b.write(t, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs", map[string]string{"job_type": "validate"})
	requireError(t, r, http.StatusConflict, "already has an unfinished job: "+id+" (harvest new, created ")
	requireError(t, r, http.StatusConflict, "POST /api/v1/harvest_jobs/"+id+"/cancel")
}

// publisherFunc is a harvest.Publisher that hands each message to a function.
type publisherFunc func(topic string, m *harvest.Message) error

func (f publisherFunc) Publish(topic string, msgs ...*harvest.Message) error {
	for _, m := range msgs {
		if err := f(topic, m); err != nil {
			return err
		}
	}
	return nil
}

func (publisherFunc) Close() error { return nil }

// TestJobCancelReported: a job cancelled through the API reaches the job aggregator, which
// counts it in harvester_jobs_finished_total{status="error"} and publishes its report.
func TestJobCancelReported(t *testing.T) {
	t.Parallel()
	var (
		mu        sync.Mutex
		published []*harvest.Message
	)
	b := setup(t, func(_ *Config, d *Deps) {
		d.Jobs.Publisher = publisherFunc(func(topic string, m *harvest.Message) error {
			require.Equal(t, harvest.SubjectSettled, topic)
			mu.Lock()
			defer mu.Unlock()
			published = append(published, m)
			return nil
		})
	})
	reg := prometheus.NewRegistry()
	agg, err := report.New(b.store, reg, nil, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(agg.Close)

	_, job := b.newHarvestJob(t)
	r := b.write(t, http.MethodPost, "/api/v1/harvest_jobs/"+job.ID+"/cancel", nil)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	got := r.object(t)
	require.Equal(t, "CancelledJob: cancelled through the API", got["error"])
	require.Nil(t, got["percent_settled"], "cancelled before its listing completed")

	mu.Lock()
	msgs := published
	mu.Unlock()
	require.Len(t, msgs, 1, "one settled message for the cancelled job")
	reports, err := agg.Handle(msgs[0])
	require.NoError(t, err)
	require.Len(t, reports, 2, "the aggregator reports the cancelled job, and in FDK's form")
	require.Equal(t, harvest.SubjectReport, reports[0].Metadata.Get(harvest.MetaSubject))
	require.Equal(t, job.ID, reports[0].Metadata.Get(harvest.MetaJobID))
	finished, err := reg.Gather()
	require.NoError(t, err)
	var count float64
	for _, mf := range finished {
		if mf.GetName() == "harvester_jobs_finished_total" {
			for _, m := range mf.GetMetric() {
				if m.GetLabel()[0].GetValue() == "error" {
					count = m.GetCounter().GetValue()
				}
			}
		}
	}
	require.Equal(t, 1.0, count, "harvester_jobs_finished_total{status=\"error\"}")

	requireError(t, b.write(t, http.MethodPost, "/api/v1/harvest_jobs/"+job.ID+"/cancel", nil), http.StatusConflict,
		"already finished")
	mu.Lock()
	require.Len(t, published, 1, "a job that had finished is not reported again")
	mu.Unlock()
}

// TestSourceOrganizationEmpty: organization_id "" is a 422, not silently no organization;
// null and omitting it still mean none.
func TestSourceOrganizationEmpty(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := validSource("https://data.example.gov/empty-org/data.json")
	body["organization_id"] = ""
	f := requireFields(t, b.write(t, http.MethodPost, "/api/v1/harvest_sources", body), "organization_id")
	require.Contains(t, f["organization_id"], "must not be empty")
	body["organization_id"] = nil
	r := b.write(t, http.MethodPost, "/api/v1/harvest_sources", body)
	require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
	require.Nil(t, r.object(t)["organization_id"])
}

// TestSourcePrivateRefused: a source on a loopback, private or link-local address is refused
// at creation (and update) with a 422 that names --allow-private-sources, unless the server
// allows private sources.
func TestSourcePrivateRefused(t *testing.T) {
	t.Parallel()
	guarded := setup(t, func(_ *Config, d *Deps) { d.Fetch.AllowPrivate = false })
	allowed := setup(t)
	for _, u := range []string{"http://127.0.0.1:8080/data.json", "http://localhost/data.json", "http://[::1]/data.json",
		"https://10.1.2.3/data.json", "http://169.254.169.254/latest/meta-data/"} {
		f := requireFields(t, guarded.write(t, http.MethodPost, "/api/v1/harvest_sources", validSource(u)), "url")
		require.Contains(t, f["url"], "--allow-private-sources", u)
		r := allowed.write(t, http.MethodPost, "/api/v1/harvest_sources", validSource(u))
		require.Equal(t, http.StatusCreated, r.status, "%s: %s", u, r.body)
	}
	public := guarded.write(t, http.MethodPost, "/api/v1/harvest_sources", validSource("https://93.184.216.34/data.json"))
	require.Equal(t, http.StatusCreated, public.status, "body: %s", public.body)
	id := public.object(t)["id"].(string)
	f := requireFields(t, guarded.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id,
		validSource("http://127.0.0.1/data.json")), "url")
	require.Contains(t, f["url"], "--allow-private-sources")

	waf := map[string]any{"name": "WAF", "url": "https://93.184.216.34/waf/", "source_type": "waf-collection",
		"schema_type": "iso19115_2", "collection_parent_url": "http://127.0.0.1/parent.xml"}
	f = requireFields(t, guarded.write(t, http.MethodPost, "/api/v1/harvest_sources", waf), "collection_parent_url")
	require.Contains(t, f["collection_parent_url"], "--allow-private-sources")
}
