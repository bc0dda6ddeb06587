package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

type testBundle struct {
	dbURL, natsURL string
	extra          []string // appended to every harvest command line
	st             *postgres.Store
	srv            *corpustest.Server
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	b := &testBundle{dbURL: dbtest.URL(t), natsURL: natstest.URL(t), srv: corpustest.NewServer(t)}
	st, err := postgres.Open(context.Background(), b.dbURL)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(context.Background()))
	b.st = st
	return b
}

// harvest runs `harvester harvest ARGS --format json` against the test's services and returns
// the decoded report and the exit status.
func (b *testBundle) harvest(t *testing.T, args ...string) (jobReport, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	args = append([]string{"harvest"}, args...)
	args = append(args, "--database-url", b.dbURL, "--nats-url", b.natsURL, "--format", "json")
	args = append(args, b.extra...)
	code := run(context.Background(), args, &out, &errOut)
	var rep jobReport
	if code != exitUsage {
		require.NoError(t, json.Unmarshal(out.Bytes(), &rep), "stdout: %s\nstderr: %s", out.String(), errOut.String())
		require.Equal(t, rep.Total, rep.Added+rep.Updated+rep.Deleted+rep.Unchanged+rep.Errored, "counts add up")
	}
	return rep, code
}

// harvestCorpus serves a corpus file at the agency URL and harvests it with the federal
// schema; the job must complete.
func (b *testBundle) harvestCorpus(t *testing.T, file string) jobReport {
	t.Helper()
	b.srv.Serve(corpustest.Path(t, file))
	rep, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code, file)
	require.Equal(t, "complete", rep.Status, file)
	return rep
}

func (b *testBundle) harvestURL(t *testing.T, schema string, extra ...string) (jobReport, int) {
	return b.harvest(t, append([]string{"--url", b.srv.URL(), "--schema-type", schema}, extra...)...)
}

const federal, nonFederal = "dcatus1.1: federal", "dcatus1.1: non-federal"

// catalogRecords returns a corpus catalog's dataset elements by identifier (first one wins).
func catalogRecords(t *testing.T, name string) map[string]json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(corpustest.Path(t, name))
	require.NoError(t, err)
	var cat struct{ Dataset []json.RawMessage }
	require.NoError(t, json.Unmarshal(raw, &cat))
	out := map[string]json.RawMessage{}
	for _, d := range cat.Dataset {
		var r struct{ Identifier string }
		require.NoError(t, json.Unmarshal(d, &r))
		if _, dup := out[r.Identifier]; !dup {
			out[r.Identifier] = d
		}
	}
	return out
}

func jsonEqual(t *testing.T, want, got json.RawMessage, msg string) {
	t.Helper()
	var w, g any
	require.NoError(t, json.Unmarshal(want, &w))
	require.NoError(t, json.Unmarshal(got, &g))
	require.Equal(t, w, g, msg)
}

func TestHarvestIncrementalGSA(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	first := b.harvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, "complete", first.Status)
	require.Equal(t, 339, first.Added)

	second := b.harvestCorpus(t, "dcatus/agency-gsa-2025-07.data.json")
	require.Equal(t, "complete", second.Status)
	require.Equal(t, [5]int{4, 99, 0, 240, 0},
		[5]int{second.Added, second.Updated, second.Deleted, second.Unchanged, second.Errored})
	require.Equal(t, 343, second.Total)

	july := catalogRecords(t, "dcatus/agency-gsa-2025-07.data.json")
	datasets, err := b.st.DatasetList(ctx, &store.DatasetListParams{SourceID: second.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, len(july))
	for _, d := range datasets {
		want, ok := july[d.Identifier]
		require.True(t, ok, "dataset %q is not in the July file", d.Identifier)
		jsonEqual(t, want, d.DCAT, d.Identifier)
		rec, err := b.st.RecordGet(ctx, d.RecordID)
		require.NoError(t, err)
		if rec.JobID == second.JobID {
			require.Equal(t, string(want), rec.SourceRaw, "source_raw keeps the record as written")
		} else {
			jsonEqual(t, want, json.RawMessage(rec.SourceRaw), "an unchanged record keeps its row")
		}
	}

	rows, err := b.st.RecordCount(ctx, second.SourceID)
	require.NoError(t, err)
	third, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, 343, third.Unchanged)
	require.Equal(t, 343, third.Total)
	after, err := b.st.RecordCount(ctx, third.SourceID)
	require.NoError(t, err)
	require.Equal(t, rows, after, "an unchanged run writes no harvest_record rows")
}

func TestHarvestDuplicatesAndInvalidVA(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	name := "dcatus/agency-va-2025-07.data.json"
	b.srv.Serve(corpustest.Path(t, name))
	rep, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, 1856, rep.Total)

	// What the job should have found, worked out here from the file itself.
	raw, err := os.ReadFile(corpustest.Path(t, name))
	require.NoError(t, err)
	var cat struct{ Dataset []json.RawMessage }
	require.NoError(t, json.Unmarshal(raw, &cat))
	v, err := dcatus.NewValidator(federal)
	require.NoError(t, err)
	seen := map[string]bool{}
	duplicates, invalid, valid := 0, map[string]bool{}, map[string]bool{}
	for _, d := range cat.Dataset {
		var r struct{ Identifier string }
		require.NoError(t, json.Unmarshal(d, &r))
		if seen[r.Identifier] {
			duplicates++
			continue
		}
		seen[r.Identifier] = true
		problems, err := v.Validate(d)
		require.NoError(t, err)
		if len(problems) > 0 {
			invalid[r.Identifier] = true
		} else {
			valid[r.Identifier] = true
		}
	}
	require.Equal(t, 21, duplicates)
	require.NotEmpty(t, invalid)
	require.Equal(t, duplicates+len(invalid), rep.Errored)
	require.Equal(t, len(valid), rep.Added)
	require.Equal(t, len(valid), rep.Validated)

	errs, total, err := b.st.RecordErrorList(ctx, &store.RecordErrorListParams{
		JobID: rep.JobID, PageParams: store.PageParams{Limit: 100_000},
	})
	require.NoError(t, err)
	require.Len(t, errs, total)
	dupRows, invalidWithRows := 0, map[string]bool{}
	for _, e := range errs {
		require.NotEmpty(t, e.Identifier, "every error row names its identifier")
		require.NotEmpty(t, e.Message)
		switch e.Type {
		case "DuplicateIdentifier":
			dupRows++
			require.Contains(t, e.Message, e.Identifier)
		case "ValidationError":
			require.True(t, invalid[e.Identifier], "%q has a validation error but validates", e.Identifier)
			require.NotEmpty(t, e.RecordID, "a validation error points at its harvest_record")
			invalidWithRows[e.Identifier] = true
		default:
			t.Fatalf("unexpected error row %+v", e)
		}
	}
	require.Equal(t, duplicates, dupRows)
	require.Equal(t, invalid, invalidWithRows)

	datasets, err := b.st.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	got := map[string]bool{}
	for _, d := range datasets {
		got[d.Identifier] = true
	}
	require.Equal(t, valid, got)
}

func TestHarvestNullsAgainstFederalSchema(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rep := b.harvestCorpus(t, "dcatus/city-philadelphia-with-nulls.data.json")
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, 402, rep.Total)
	require.Equal(t, 402, rep.Errored)
	datasets, err := b.st.DatasetList(context.Background(), &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	require.Empty(t, datasets)
}

func TestHarvestBrokenSourceDeletesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first := b.harvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, 339, first.Added)

	for _, tc := range []struct {
		name   string
		file   string
		status int
		want   []string // in the job error
	}{
		{"not json", "dcatus/INVALID-not-json.data.json", 0, []string{"ParseError", "line 3, column 5"}},
		{"json but not a catalog", "dcatus/INVALID-json-but-not-catalog.json", 0, []string{"ParseError", `no "dataset" array`}},
		{"malformed mid-file", "dcatus/INVALID-cfpb-malformed-geojson-spatial.data.json", 0, []string{"ParseError", "line 82, column 7"}},
		{"legacy array", "dcatus/pod-v1.0-legacy-array-catalog-sample.json", 0, []string{"Project Open Data 1.0"}},
		{"an HTML page", "waf/apache-noaa-garfo.html", 0, []string{"ParseError", "HTML page (title \"Index of"}},
		{"http 404", "", http.StatusNotFound, []string{"ExtractError", "HTTP 404 Not Found"}},
		{"http 500", "", http.StatusInternalServerError, []string{"ExtractError", "HTTP 500 Internal Server Error"}},
	} {
		if tc.status != 0 {
			b.srv.Fail(tc.status)
		} else {
			b.srv.Serve(corpustest.Path(t, tc.file))
		}
		rep, code := b.harvestURL(t, federal)
		require.Equal(t, exitJobError, code, tc.name)
		require.Equal(t, "error", rep.Status, tc.name)
		require.Len(t, rep.JobErrors, 1, tc.name)
		for _, w := range tc.want {
			require.Contains(t, rep.JobErrors[0], w, tc.name)
		}
		require.Zero(t, rep.Deleted+rep.Added+rep.Updated, tc.name)
		datasets, err := b.st.DatasetList(ctx, &store.DatasetListParams{SourceID: first.SourceID})
		require.NoError(t, err)
		require.Len(t, datasets, 339, "%s: the source keeps all its datasets", tc.name)
	}
}

func TestHarvestJobTypes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.srv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))

	val, code := b.harvestURL(t, federal, "--job-type", "validate")
	require.Equal(t, exitOK, code)
	require.Equal(t, "complete", val.Status)
	require.Equal(t, 339, val.Validated)
	datasets, err := b.st.DatasetList(ctx, &store.DatasetListParams{SourceID: val.SourceID})
	require.NoError(t, err)
	require.Empty(t, datasets, "validate writes no dataset")
	rows, err := b.st.RecordCount(ctx, val.SourceID)
	require.NoError(t, err)
	require.Zero(t, rows, "validate leaves no history that a later harvest would compare against")

	h, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, 339, h.Added)

	force, code := b.harvestURL(t, federal, "--job-type", "force_harvest")
	require.Equal(t, exitOK, code)
	require.Equal(t, 339, force.Updated)
	require.Equal(t, 339, force.Total)

	rows, err = b.st.RecordCount(ctx, h.SourceID)
	require.NoError(t, err)
	clear, code := b.harvestURL(t, federal, "--job-type", "clear")
	require.Equal(t, exitOK, code)
	require.Equal(t, "complete", clear.Status)
	require.Equal(t, 339, clear.Deleted)
	require.Equal(t, 339, clear.Total)
	datasets, err = b.st.DatasetList(ctx, &store.DatasetListParams{SourceID: h.SourceID})
	require.NoError(t, err)
	require.Empty(t, datasets, "clear deletes every dataset")
	after, err := b.st.RecordCount(ctx, h.SourceID)
	require.NoError(t, err)
	require.Equal(t, rows+339, after, "clear keeps the history and adds a delete record per dataset")

	again, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, 339, again.Added, "after a clear every record is new again")
}

func TestHarvestDeletesWhatTheSourceDropped(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.harvestCorpus(t, "dcatus/agency-gsa-2025-07.data.json")
	rep := b.harvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, [5]int{0, 99, 4, 240, 0}, [5]int{rep.Added, rep.Updated, rep.Deleted, rep.Unchanged, rep.Errored})
	datasets, err := b.st.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 339)
}

func TestHarvestBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"harvest", "--schema-type", federal},
		{"harvest", "--url", "https://x.example/data.json", "--file", "x.json", "--schema-type", federal},
		{"harvest", "--url", "https://x.example/data.json", "--schema-type", "dcatus9"},
		{"harvest", "--url", "https://x.example/data.json", "--schema-type", federal, "--job-type", "nope"},
		{"harvest", "--url", "https://x.example/data.json", "--schema-type", federal, "--format", "xml"},
		{"harvest", "--no-such-flag"},
		{"no-such-command"},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, &out, &errOut)
		require.Equal(t, exitUsage, code, "%v: %s", args, errOut.String())
		require.True(t, strings.HasPrefix(errOut.String(), "harvester: "), errOut.String())
		hint := "Run 'harvester harvest --help' for usage."
		if args[0] != "harvest" {
			hint = "Run 'harvester --help' for usage."
		}
		require.Contains(t, errOut.String(), "\n"+hint+"\n", "the hint names the subcommand's help")
	}
	var out, errOut bytes.Buffer
	require.Equal(t, exitUsage, run(context.Background(), []string{"harvest", "--url", "https://x.example/data.json"}, &out, &errOut))
	require.Equal(t, `harvester: --schema-type: required for a document source: "dcatus1.1: federal", "dcatus1.1: non-federal", `+
		`"dcatus3.0", "iso19115_1" or "iso19115_2"`+"\nRun 'harvester harvest --help' for usage.\n", errOut.String())
}

// A document of another kind than the schema type expects (RDF for a DCAT-US or ISO schema type),
// fails the job with a job error that says so, never a generic parse error or a complete job.
func TestHarvestWrongKindOfDocument(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, c := range []struct{ file, schema, want string }{
		{"dcatus/datagov-cftc.data.json", "iso19115_2", `the document is JSON, not ISO 19115 XML, as schema type "iso19115_2" expects: for a DCAT-US data.json use schema type "dcatus1.1: federal"`},
		{"iso19115/datagov-valid-iso2-gmi.xml", federal, `the document is XML, not a DCAT-US catalog (JSON), as schema type "dcatus1.1: federal" expects: for ISO 19115 XML use schema type "iso19115_1" or "iso19115_2"`},
		{"iso19115/catalog-data-gov-noaa-wcsd-leading-whitespace-gmi.xml", nonFederal, "the document is XML, not a DCAT-US catalog"},
		{"dcatap/ckan-demo-catalog-hydra.ttl", federal, "the document is Turtle or N-Triples (RDF): harvest an RDF document (DCAT-AP) as --source-type rdf --schema-type dcat-ap"},
		{"dcatap/ckan-demo-catalog-hydra.ttl", "iso19115_1", "--source-type rdf --schema-type dcat-ap"},
		{"dcatap/semic-2.1.1-example1.nt", federal, "the document is Turtle or N-Triples (RDF)"},
		{"dcatap/ckan-demo-catalog-hydra.rdf", federal, "the document is RDF/XML: harvest an RDF document (DCAT-AP) as --source-type rdf --schema-type dcat-ap"},
		{"dcatap/geonetwork-sig-oreme-catalogrecords.rdf", "iso19115_2", "the document is RDF/XML"},
		{"dcatus/dcatus3-catalog.json", federal, `wrong schema type: the document is a DCAT-US 3.0 catalog, not DCAT-US 1.1; harvest it with schema type "dcatus3.0" (conformsTo {"@type":"Standard","title":"DCAT-US 3.0"})`},
		{"dcatus/dcatus3-series-with-members.json", nonFederal, "wrong schema type"},
	} {
		rep, code := b.harvest(t, "--file", corpustest.Path(t, c.file), "--schema-type", c.schema)
		require.Equal(t, exitJobError, code, c.file)
		require.Equal(t, "error", rep.Status, c.file)
		require.Len(t, rep.JobErrors, 1, c.file)
		require.Contains(t, rep.JobErrors[0], c.want, c.file)
		require.Zero(t, rep.Total, "no record moves: %s", c.file)
	}
}

var _ = harvest.Version

// One catalog written several ways on the command line is one source (harvest.NormalizeURL),
// and so is a source stored before URLs were normalised.
func TestHarvestURLVariantsAreOneSource(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.srv.Serve(corpustest.Path(t, "dcatus/datagov-cftc.data.json"))
	base := strings.TrimSuffix(b.srv.URL(), "/data.json") // http://127.0.0.1:PORT
	legacy, err := b.st.SourceInsert(ctx, &store.SourceInsertParams{Name: "legacy", URL: b.srv.URL() + "?#catalog",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal, Frequency: harvest.FrequencyManual,
		NotificationFrequency: harvest.NotifyOnError})
	require.NoError(t, err)
	for _, u := range []string{b.srv.URL(), b.srv.URL() + "?", b.srv.URL() + "#x", " " + b.srv.URL() + " ",
		strings.Replace(base, "http://", "HTTP://", 1) + "/a/../%64ata.json", base + "//data.json"} {
		rep, code := b.harvest(t, "--url", u, "--schema-type", federal)
		require.Equal(t, exitOK, code, "%s: %v", u, rep.JobErrors)
		require.Equal(t, legacy.ID, rep.SourceID, "%q is the legacy source", u)
	}
	_, total, err := b.st.SourceList(ctx, &store.SourceListParams{})
	require.NoError(t, err)
	require.Equal(t, 1, total)

	rep, code := b.harvest(t, "--url", b.srv.URL()+"?v=2", "--schema-type", federal)
	require.Equal(t, exitOK, code)
	require.NotEqual(t, legacy.ID, rep.SourceID, "a query makes another source")
	src, err := b.st.SourceGet(ctx, rep.SourceID)
	require.NoError(t, err)
	require.Equal(t, b.srv.URL()+"?v=2", src.URL)
}
