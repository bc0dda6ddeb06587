package assess_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
)

// TestDCATAPOnItsGraph: a DCAT-AP dataset is scored on its stored record graph, not on the
// DCAT-US record TRANSFORM made of it, by every path that scores (a dataset's quality, its
// source's, a feed page's, the recorded history), with TRANSFORM's warnings not counted against
// its compliance; and it is scored again when its links' checks change.
//
// The graph has a keyword and one distribution with an accessURL, a downloadURL, an EU file
// type (CSV), an IANA media type and a byteSize, and no access rights: keyword 30,
// downloadURL 20, format 20, media type 10, aligned 10, non-proprietary 20, machine-readable
// 20, compliance 30 (the one row is TRANSFORM's), byteSize 5 = 165; with both links answering
// 200 another 50 + 30 = 245. Its DCAT-US record (accessLevel "public" filled in, no byteSize)
// would score 145 with that row against it.
func TestDCATAPOnItsGraph(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "AP " + uuid.NewString()[:8],
			URL: "https://ex.eu/" + uuid.NewString() + "/catalog.ttl", SourceType: harvest.SourceRDF,
			SchemaType: harvest.SchemaDCATAP})
		require.NoError(t, err)
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		base := "https://files.ex.eu/" + uuid.NewString()[:8]
		iri, dist := base+"/dataset/1", base+"/dataset/1/csv"
		access, download := base+"/page", base+"/data.csv"
		graph := "<" + iri + "> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Dataset> .\n" +
			"<" + iri + "> <http://www.w3.org/ns/dcat#keyword> \"water\"@en .\n" +
			"<" + iri + "> <http://www.w3.org/ns/dcat#distribution> <" + dist + "> .\n" +
			"<" + dist + "> <http://www.w3.org/ns/dcat#accessURL> <" + access + "> .\n" +
			"<" + dist + "> <http://www.w3.org/ns/dcat#downloadURL> <" + download + "> .\n" +
			"<" + dist + "> <http://purl.org/dc/terms/format> <http://publications.europa.eu/resource/authority/file-type/CSV> .\n" +
			"<" + dist + "> <http://www.w3.org/ns/dcat#mediaType> <http://www.iana.org/assignments/media-types/text/csv> .\n" +
			"<" + dist + "> <http://www.w3.org/ns/dcat#byteSize> \"2048\"^^<http://www.w3.org/2001/XMLSchema#nonNegativeInteger> .\n"
		doc, err := json.Marshal(map[string]any{"identifier": iri, "keyword": []string{"water"}, "accessLevel": "public",
			"distribution": []map[string]any{{"accessURL": access, "downloadURL": download, "format": "CSV",
				"mediaType": "text/csv"}}})
		require.NoError(t, err)
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: iri, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: graph, SchemaType: harvest.SchemaDCATAP})
		require.NoError(t, err)
		_, _, err = st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: iri, Identifier: iri,
			RecordID: rec.ID, Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess,
			Errors: []harvest.RecordError{{Type: harvest.TypeTransformWarning, Severity: harvest.SeverityWarning,
				Message: "contactPoint: 2 contact points; one kept"}}})
		require.NoError(t, err)
		ds, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: iri,
			Slug: "ap-" + uuid.NewString()[:8], DCAT: doc, RecordID: rec.ID})
		require.NoError(t, err)

		scored := func(want float64) {
			t.Helper()
			one, err := assess.DatasetQuality(ctx, st, ds.ID)
			require.NoError(t, err)
			require.InDelta(t, want, one.Score.Points, 1e-9, "DatasetQuality: %+v", one.Score.Indicators)
			require.False(t, one.Findings, "TRANSFORM's warning is no SHACL finding")
			source, err := assess.SourceQuality(ctx, st, src.ID)
			require.NoError(t, err)
			require.InDelta(t, want, source.Mean, 1e-9, "SourceQuality")
			page, err := assess.ScoreRecords(ctx, st, []assess.Record{{ID: ds.ID, Identifier: ds.Identifier, DCAT: ds.DCAT}})
			require.NoError(t, err)
			require.InDelta(t, want, page[ds.ID].Points, 1e-9, "ScoreRecords")
			recorded, err := assess.RecordJob(ctx, st, &store.HarvestJob{ID: uuid.NewString(), SourceID: src.ID}, src)
			require.NoError(t, err)
			require.InDelta(t, want, recorded.Source.Mean, 1e-9, "RecordJob")
		}
		scored(165)
		now := time.Now().UTC()
		require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{
			{URL: access, Status: 200, OK: true, FinalURL: access, ContentLength: -1, CheckedAt: now},
			{URL: download, Status: 200, OK: true, FinalURL: download, ContentLength: -1, CheckedAt: now}}))
		scored(245)
	})
}
