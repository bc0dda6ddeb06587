package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
)

// sharedCatalog writes a data.json of the sample record under each identifier, without the
// landingPage and distribution that every copy of the sample would share (so that only the
// identifiers make cross-source duplicates), and returns its path.
func sharedCatalog(t *testing.T, identifiers ...string) string {
	t.Helper()
	var records []string
	for _, id := range identifiers {
		var d map[string]any
		require.NoError(t, json.Unmarshal([]byte(pipelinetest.SampleRecord(t, id, "")), &d))
		delete(d, "landingPage")
		delete(d, "distribution")
		raw, err := json.Marshal(d)
		require.NoError(t, err)
		records = append(records, string(raw))
	}
	path := filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"dataset":[`+strings.Join(records, ",")+`]}`), 0o644))
	return path
}

// duplicatePage is a page of GET /api/v1/cross_source_duplicates.
type duplicatePage struct {
	Total int
	Items []struct {
		Match, Key string
		Kept, Held struct {
			SourceID   string `json:"source_id"`
			SourceName string `json:"source_name"`
			Precedence int
		}
		FirstJobID *string `json:"first_job_id"`
	}
}

// TestServeShowsCrossSourceDuplicates: an agency's own source (precedence 10) and an aggregator
// (precedence -10) publish the same three datasets. The aggregator's job holds its copies: its
// report email says so, line by line; the API lists the three pairs by job, by source and by
// organization, with the agency's side live; the source, organization and job pages show them.
func TestServeShowsCrossSourceDuplicates(t *testing.T) {
	shared := []string{"dup-1", "dup-2", "dup-3"}
	agency, aggregator := corpustest.NewServer(t), corpustest.NewServer(t)
	agency.Serve(sharedCatalog(t, append(shared, "agency-only")...))
	aggregator.Serve(sharedCatalog(t, append(shared, "aggregator-only")...))
	c := startMailServe(t, "--base-url", "https://harvest.example.gov")

	var org, own, agg struct{ ID string }
	c.call("POST", "/api/v1/organizations", map[string]string{"name": "Sample Agency", "slug": "sample"}, http.StatusCreated, &org)
	c.call("POST", "/api/v1/harvest_sources", map[string]any{"name": "Agency data.json", "url": agency.URL(),
		"organization_id": org.ID, "schema_type": federal, "precedence": 10,
		"notification_emails": []string{"agency@example.gov"}, "notification_frequency": "always"}, http.StatusCreated, &own)
	c.call("POST", "/api/v1/harvest_sources", map[string]any{"name": "Aggregator", "url": aggregator.URL(),
		"schema_type": federal, "precedence": -10,
		"notification_emails": []string{"aggregator@example.gov"}, "notification_frequency": "always"}, http.StatusCreated, &agg)

	ownJob := c.runJob(own.ID, "harvest")
	require.Equal(t, [2]any{"complete", 4}, [2]any{ownJob.Status, ownJob.Added})
	aggJob := c.runJob(agg.ID, "harvest")
	require.Equal(t, "complete", aggJob.Status)

	msgs := c.smtp.Messages()
	require.Len(t, msgs, 2)
	_, first := msgs[0].Parse(t)
	require.NotContains(t, first, "Cross-source", "the agency's job found no pair: the aggregator had nothing yet")
	_, second := msgs[1].Parse(t)
	require.Contains(t, second, "Cross-source duplicates: this job found 3 new datasets that another source publishes too:\n")
	for _, id := range shared {
		require.Regexp(t, fmt.Sprintf(`\n  identifier "%s": also in "Agency data.json" \(dataset [^)]+\); held here; live in "Agency data.json"\n`,
			id), second)
	}

	for query, want := range map[string]int{"job_id=" + aggJob.ID: 3, "job_id=" + ownJob.ID: 0, "source_id=" + own.ID: 3,
		"source_id=" + agg.ID: 3, "organization_id=" + org.ID: 3, "": 3} {
		var page duplicatePage
		c.call("GET", "/api/v1/cross_source_duplicates?"+query, nil, http.StatusOK, &page)
		require.Equal(t, want, page.Total, query)
		require.Len(t, page.Items, want, query)
		for _, d := range page.Items {
			require.Equal(t, "identifier", d.Match)
			require.Contains(t, shared, d.Key)
			require.Equal(t, [4]any{own.ID, 10, agg.ID, -10}, [4]any{d.Kept.SourceID, d.Kept.Precedence, d.Held.SourceID,
				d.Held.Precedence}, "the agency's dataset is live")
			require.NotNil(t, d.FirstJobID)
			require.Equal(t, aggJob.ID, *d.FirstJobID)
		}
	}

	for path, count := range map[string]string{
		"/harvest_sources/" + own.ID: "Cross-source duplicates: ", "/harvest_sources/" + agg.ID: "Cross-source duplicates: ",
		"/organizations/" + org.ID: "Cross-source duplicates: ", "/harvest_jobs/" + aggJob.ID: "New cross-source duplicates: ",
	} {
		status, page := c.do("GET", path, nil, "")
		require.Equal(t, http.StatusOK, status, path)
		require.Contains(t, string(page), count+`<span id="duplicates-count">3</span>`, path)
		require.Equal(t, 3, strings.Count(string(page), `<tr class="duplicate"`), path)
	}
}
