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

// TestServeShowsHeldSide (issue 34): seen from the held side. An aggregator publishes three
// datasets first; the agency's own source (precedence 10) then holds them, in its job. The
// aggregator's next job, its records unchanged, counts and names them: held 3 in its JSON,
// a warning for each saying which source keeps it (none was carried: it had none), an email
// listing them with the dataset that is live instead, and the sources list's "held 3". When
// the pair swaps in the agency's job (the aggregator ranks first now), the aggregator's next
// warnings say that its datasets are the live ones, not what the carried ones said.
func TestServeShowsHeldSide(t *testing.T) {
	shared := []string{"dup-1", "dup-2", "dup-3"}
	agency, aggregator := corpustest.NewServer(t), corpustest.NewServer(t)
	agency.Serve(sharedCatalog(t, append(shared, "agency-only")...))
	aggregator.Serve(sharedCatalog(t, append(shared, "aggregator-only")...))
	c := startMailServe(t, "--base-url", "https://harvest.example.gov")

	var own, agg struct{ ID string }
	c.call("POST", "/api/v1/harvest_sources", map[string]any{"name": "Aggregator", "url": aggregator.URL(),
		"schema_type": federal, "notification_emails": []string{"aggregator@example.gov"},
		"notification_frequency": "always"}, http.StatusCreated, &agg)
	c.call("POST", "/api/v1/harvest_sources", map[string]any{"name": "Agency data.json", "url": agency.URL(),
		"schema_type": federal, "precedence": 10}, http.StatusCreated, &own)

	require.Equal(t, 4, c.runJob(agg.ID, "harvest").Added)
	require.Equal(t, 4, c.runJob(own.ID, "harvest").Added)
	held := c.runJob(agg.ID, "harvest")
	require.Equal(t, [4]int{4, 4, 3, 3}, [4]int{held.Total, held.Unchanged, held.Warned, held.Held},
		"total, unchanged, warned and held")
	warnings := jobWarnings(t, c, held.ID)
	require.Len(t, warnings, 3)
	for _, w := range warnings {
		require.Contains(t, w, `harvest source "Agency data.json"`)
		require.Contains(t, w, "its dataset is held, not live")
	}

	msgs := c.smtp.Messages()
	require.Len(t, msgs, 2, "the aggregator's two jobs")
	_, body := msgs[1].Parse(t)
	require.Contains(t, body, "  Held:       3\n")
	require.Contains(t, body, "\nHeld: 3 datasets of this source are held as cross-source duplicates (harvested, "+
		"not published: another source's copy is live):\n")
	for _, id := range shared {
		require.Regexp(t, fmt.Sprintf(`\n  "%s": live in "Agency data.json" \(dataset [^)]+\), same identifier "%s"\n`, id, id), body)
	}
	status, page := c.do("GET", "/harvest_sources", nil, "")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(page), `<div class="hint held-count">held 3</div>`)
	status, page = c.do("GET", "/harvest_jobs/"+held.ID, nil, "")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(page), `<dd id="count-held">3 `)

	// The pair swaps in the agency's job: the aggregator's warnings follow.
	var src map[string]any
	c.call("GET", "/api/v1/harvest_sources/"+agg.ID, nil, http.StatusOK, &src)
	src["precedence"] = 20
	c.call("PUT", "/api/v1/harvest_sources/"+agg.ID, src, http.StatusOK, nil)
	require.Equal(t, 3, c.runJob(own.ID, "harvest").Held)
	live := c.runJob(agg.ID, "harvest")
	require.Equal(t, [3]int{4, 3, 0}, [3]int{live.Unchanged, live.Warned, live.Held})
	for _, w := range jobWarnings(t, c, live.ID) {
		require.Contains(t, w, "this dataset is the live one and that one is held", "a warning that is true now")
	}
}

// jobWarnings are the messages of the job's warning rows (GET .../record_errors).
func jobWarnings(t *testing.T, c *mailServe, jobID string) []string {
	t.Helper()
	var page struct {
		Items []struct{ Severity, Message string }
	}
	c.call("GET", "/api/v1/harvest_jobs/"+jobID+"/record_errors?per_page=100", nil, http.StatusOK, &page)
	var out []string
	for _, e := range page.Items {
		if e.Severity == "warning" {
			out = append(out, e.Message)
		}
	}
	return out
}

// TestHarvestReportsHeldDatasets (issue 34): `harvester harvest` reports, in text and in JSON,
// how many of the source's datasets are held as cross-source duplicates and which, each with
// the source and dataset that is live instead.
func TestHarvestReportsHeldDatasets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	shared := []string{"dup-1", "dup-2", "dup-3"}
	agg := sharedCatalog(t, append(shared, "aggregator-only")...)
	own := sharedCatalog(t, append(shared, "agency-only")...)
	_, code := b.harvest(t, "--file", agg, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	_, code = b.harvest(t, "--file", own, "--schema-type", federal, "--precedence", "10")
	require.Equal(t, exitOK, code)

	rep, code := b.harvest(t, "--file", agg, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, 3, rep.Held)
	require.Equal(t, 3, rep.HeldDatasets.Total)
	require.Len(t, rep.HeldDatasets.Rows, 3)
	for _, r := range rep.HeldDatasets.Rows {
		require.Contains(t, shared, r.Identifier)
		require.Equal(t, [3]string{"identifier", r.Identifier, r.Identifier}, [3]string{r.Match, r.Key, r.KeptIdentifier})
		require.NotEmpty(t, r.KeptSourceID)
		require.NotEmpty(t, r.KeptDataset)
	}

	code, out, stderr := runCmd("harvest", "--file", agg, "--schema-type", federal, "--database-url", b.dbURL,
		"--nats-url", b.natsURL)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, out, "\n  held 3: datasets of this source held as cross-source duplicates (not live: another source's copy is)\n")
	require.Contains(t, out, "\n  3 held datasets:\n")
	for _, id := range shared {
		require.Regexp(t, fmt.Sprintf(`\n    "%s" held by harvest source "[^"]+" \([0-9a-f-]{36}\): its dataset "[^"]+" is live, same identifier "%s"\n`,
			id, id), out)
	}
}
