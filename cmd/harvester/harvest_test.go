package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/postgres"
)

// testBundle is a test's services (pipelinetest.New: Postgres on a fresh schema, a NATS
// server, an agency server) for the commands it runs.
type testBundle struct {
	dbURL, natsURL string
	extra          []string // appended to every harvest command line
	st             *postgres.Store
	srv            *corpustest.Server
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	h := pipelinetest.New(t)
	return &testBundle{dbURL: h.DatabaseURL, natsURL: h.NATSURL, st: h.Store, srv: h.Corpus}
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
	return pipelinetest.CatalogRecords(t, name)
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
		`"dcatus3.0", "iso19115_1", "iso19115_2" or "fgdc"`+"\nRun 'harvester harvest --help' for usage.\n", errOut.String())
}

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
