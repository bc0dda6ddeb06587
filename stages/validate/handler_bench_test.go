package validate_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/harvester-dev/harvester/internal/cputime"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/validate"
)

// BenchmarkHandle times VALIDATE on 1,000 DCAT-US 1.1 records of the corpus (taken in turn
// from the eight agency catalogs of July 2025) against the federal schema, as a harvest job
// sends them: the envelope decoded, the record validated, its output encoded (to SYNC, or
// settled as error_validation for the records the schema refuses). One op is one record;
// cpu-ns/op is the CPU time of the process (GC included) per record.
func BenchmarkHandle(b *testing.B) {
	var perFile [][]json.RawMessage
	for _, name := range []string{"cfpb", "cms", "dhs", "dol", "energy", "fcc-socrata", "gsa", "va"} {
		f, err := os.Open(corpustest.Path(b, "dcatus/agency-"+name+"-2025-07.data.json"))
		require.NoError(b, err)
		var records []json.RawMessage
		require.NoError(b, catalog.WalkCatalog(f, func(_ int, raw json.RawMessage) error {
			records = append(records, raw)
			return nil
		}))
		require.NoError(b, f.Close())
		perFile = append(perFile, records)
	}
	var msgs []*harvest.Message
	for pos := 0; len(msgs) < 1000; pos++ {
		for _, records := range perFile {
			if pos < len(records) && len(msgs) < 1000 {
				rec := &harvest.Record{JobID: "00000000-0000-0000-0000-000000000001", RecordID: "r",
					JobType: harvest.JobHarvest, SchemaType: harvest.SchemaDCATUS11Federal, Identifier: "i",
					Position: pos, Action: harvest.ActionCreate, Body: harvest.RawText(records[pos])}
				m, err := harvest.RecordMessage(harvest.SubjectValidate, rec)
				require.NoError(b, err)
				msgs = append(msgs, m)
			}
		}
	}
	h := validate.New()
	b.ReportAllocs()
	cpu := cputime.Self()
	i := 0
	for b.Loop() {
		out, err := h.Handle(msgs[i%len(msgs)])
		if err != nil || len(out) != 1 {
			b.Fatal(err, len(out))
		}
		i++
	}
	b.ReportMetric(float64(cputime.Self()-cpu)/float64(b.N), "cpu-ns/op")
}
