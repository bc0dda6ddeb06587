package extract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// TestHarvestBadRecordsAreErrorRows runs records that once failed whole jobs through every stage
// on Postgres and NATS (default 1 MiB max payload): each is one error row, and a record that
// is in the source, only unusable this time, keeps its dataset. A 2 MiB record, over the
// message size, is harvested (its body travels by reference); one over the 16 MiB record size
// cap is an error row naming its size and the cap.
func TestHarvestBadRecordsAreErrorRows(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.json")
	write := func(records ...string) {
		require.NoError(t, os.WriteFile(path, []byte(`{"dataset":[`+strings.Join(records, ",")+`]}`), 0o644))
	}
	ok := pipelinetest.SampleRecord(t, "ok", "Fine.")
	html := pipelinetest.SampleRecord(t, "html", strings.Repeat("<p>a &amp; b</p>", 40000)) // 640 KB; 3.8 MB if escaped
	write(ok, html, pipelinetest.SampleRecord(t, "big", "Small for now."), pipelinetest.SampleRecord(t, "latin1", "Café"),
		pipelinetest.SampleRecord(t, "huge", "Small for now."))
	src := pipelinetest.Source{URL: path, SchemaType: pipelinetest.Federal}
	first := h.Harvest(t, src)
	pipelinetest.MustComplete(t, first)
	require.Equal(t, [2]int{5, 0}, [2]int{first.Added, first.Errored}, "%+v", first)

	latin1 := bytes.ReplaceAll([]byte(pipelinetest.SampleRecord(t, "latin1", "Café, now in Latin-1")), []byte("é"), []byte{0xe9})
	bigNotes := strings.Repeat("x", 2<<20)
	huge := pipelinetest.SampleRecord(t, "huge", strings.Repeat("y", 17<<20))
	write(ok, html, pipelinetest.SampleRecord(t, "big", bigNotes), string(latin1),
		strings.Replace(ok, `"identifier":"ok"`, `"identifier":"nul\u0000id"`, 1), huge)
	rep := h.Harvest(t, src)
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, [5]int{6, 2, 1, 3, 0}, [5]int{rep.Total, rep.Unchanged, rep.Updated, rep.Errored, rep.Deleted},
		"huge and latin1 are still in the source: not deleted")
	errs, total, err := h.Store.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: rep.JobID})
	require.NoError(t, err)
	require.Equal(t, 3, total)
	types := map[string]string{}
	for _, e := range errs {
		types[e.Type] = e.Identifier
		if e.Type == "RecordTooLarge" {
			require.Contains(t, e.Message, fmt.Sprintf("is %d bytes, over the record size cap of %d bytes", len(huge), 16<<20))
		}
	}
	require.Equal(t, map[string]string{"RecordTooLarge": "huge", "InvalidEncoding": "latin1", "InvalidIdentifier": ""}, types)
	for _, id := range []string{"huge", "latin1"} {
		_, err := h.Store.DatasetGet(ctx, &store.DatasetGetParams{SourceID: rep.SourceID, Identifier: id})
		require.NoError(t, err, "%s keeps its dataset", id)
	}
	d, err := h.Store.DatasetGet(ctx, &store.DatasetGetParams{SourceID: rep.SourceID, Identifier: "big"})
	require.NoError(t, err)
	var dcat struct{ Notes string }
	require.NoError(t, json.Unmarshal(d.DCAT, &dcat))
	require.Equal(t, bigNotes, dcat.Notes, "the 2 MiB record went through every stage whole")

	// On the embedded default (the in-process server) too.
	h.Config.DatabaseURL, h.Config.NATSURL, h.Config.DataDir, h.Config.SearchIndex = "", "", t.TempDir(), "none"
	emb := h.Harvest(t, src)
	pipelinetest.MustComplete(t, emb)
	require.Equal(t, [3]int{6, 3, 3}, [3]int{emb.Total, emb.Added, emb.Errored}, "%+v", emb)
}
