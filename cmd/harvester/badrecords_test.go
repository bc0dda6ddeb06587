package main

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

	"github.com/harvester-dev/harvester/store"
)

// validRecord returns the first record of the sample catalog (valid DCAT-US) with the given
// identifier and an extra member "notes" (the schema's description is at most 10,000 characters).
func validRecord(t *testing.T, identifier, notes string) string {
	t.Helper()
	raw, err := os.ReadFile("../../examples/agency-sample.data.json")
	require.NoError(t, err)
	var cat struct{ Dataset []map[string]any }
	require.NoError(t, json.Unmarshal(raw, &cat))
	d := cat.Dataset[0]
	d["identifier"], d["notes"] = identifier, notes
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(d))
	return strings.TrimSpace(buf.String())
}

// TestHarvestBadRecordsAreErrorRows runs records that once failed whole jobs through every stage
// on Postgres and NATS (default 1 MiB max payload): each is one error row, and a record that
// is in the source, only unusable this time, keeps its dataset. A 2 MiB record, over the
// message size, is harvested (its body travels by reference); one over the 16 MiB record size
// cap is an error row naming its size and the cap.
func TestHarvestBadRecordsAreErrorRows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.json")
	write := func(records ...string) {
		require.NoError(t, os.WriteFile(path, []byte(`{"dataset":[`+strings.Join(records, ",")+`]}`), 0o644))
	}
	ok := validRecord(t, "ok", "Fine.")
	html := validRecord(t, "html", strings.Repeat("<p>a &amp; b</p>", 40000)) // 640 KB; 3.8 MB if escaped
	write(ok, html, validRecord(t, "big", "Small for now."), validRecord(t, "latin1", "Café"),
		validRecord(t, "huge", "Small for now."))
	first, code := b.harvest(t, "--file", path, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, [2]int{5, 0}, [2]int{first.Added, first.Errored}, "%+v", first)

	latin1 := bytes.ReplaceAll([]byte(validRecord(t, "latin1", "Café, now in Latin-1")), []byte("é"), []byte{0xe9})
	bigNotes := strings.Repeat("x", 2<<20)
	huge := validRecord(t, "huge", strings.Repeat("y", 17<<20))
	write(ok, html, validRecord(t, "big", bigNotes), string(latin1),
		strings.Replace(ok, `"identifier":"ok"`, `"identifier":"nul\u0000id"`, 1), huge)
	rep, code := b.harvest(t, "--file", path, "--schema-type", federal)
	require.Equal(t, exitOK, code, "%+v", rep)
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, [5]int{6, 2, 1, 3, 0}, [5]int{rep.Total, rep.Unchanged, rep.Updated, rep.Errored, rep.Deleted},
		"huge and latin1 are still in the source: not deleted")
	errs, total, err := b.st.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: rep.JobID})
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
		_, err := b.st.DatasetGet(ctx, &store.DatasetGetParams{SourceID: rep.SourceID, Identifier: id})
		require.NoError(t, err, "%s keeps its dataset", id)
	}
	d, err := b.st.DatasetGet(ctx, &store.DatasetGetParams{SourceID: rep.SourceID, Identifier: "big"})
	require.NoError(t, err)
	var dcat struct{ Notes string }
	require.NoError(t, json.Unmarshal(d.DCAT, &dcat))
	require.Equal(t, bigNotes, dcat.Notes, "the 2 MiB record went through every stage whole")

	// On the embedded default (the in-process server) too.
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code = run(ctx, []string{"harvest", "--file", path, "--schema-type", federal, "--data-dir", dir,
		"--database-url", "", "--nats-url", "", "--search-index", "none", "--format", "json"}, &out, &errOut)
	require.Equal(t, exitOK, code, "%s", errOut.String())
	var emb jobReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &emb))
	require.Equal(t, [3]int{6, 3, 3}, [3]int{emb.Total, emb.Added, emb.Errored}, "%+v", emb)
}
