package csw_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/pycswtest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// TestHarvestPycswFGDC (issue 34 item 9): a csw source of schema type fgdc asks a real pycsw
// server (2.6.2, which offers FGDC CSDGM as outputSchema http://www.opengis.net/cat/csw/csdgm)
// for FGDC records and keys each by the id pycsw gives it (idinfo/datasetid), not by a
// download URL (the first onlink pycsw writes is a record's first link): all 13 sample records
// are added under their identifiers, each a valid dataset, and the next harvest changes
// nothing. Real FGDC records of the corpus loaded into pycsw, which serves them as they are
// (no datasetid), are keyed by their citation's own link. On Postgres and on the embedded
// default (SQLite).
func TestHarvestPycswFGDC(t *testing.T) {
	t.Parallel()
	samples := pycswtest.Start(t)
	dir := t.TempDir()
	corpus := map[string]string{ // file: its citation's own link
		"fgdc-catalog-data-gov-metadata-1.xml":         "https://viewer.nationalmap.gov",
		"fgdc-usgs-us-topo-collection-bom-doctype.xml": "http://thor-f5.er.usgs.gov/ngtoc/metadata/ustopo/",
		"fgdc-usgs-white-fronted-goose.xml":            "https://doi.org/10.5066/F71G0JGN",
	}
	var links []string
	for name, link := range corpus {
		b, err := os.ReadFile(corpustest.Path(t, filepath.Join("iso19115", name)))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
		links = append(links, link)
	}
	corpusCSW := pycswtest.StartRecords(t, dir)

	for _, backend := range []string{"postgres", "sqlite"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			h := pipelinetest.New(t)
			var st store.Store = h.Store
			if backend == "sqlite" {
				h.Config.DatabaseURL, h.Config.NATSURL = "", ""
				lite, err := sqlite.Open(t.Context(), filepath.Join(h.Config.DataDir, "harvester.db"))
				require.NoError(t, err)
				t.Cleanup(lite.Close)
				require.NoError(t, lite.Migrate(t.Context()))
				st = lite
			}
			live := func(sourceID string) []string {
				ds, err := st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: sourceID})
				require.NoError(t, err)
				var ids []string
				for _, d := range ds {
					ids = append(ids, d.Identifier)
				}
				return ids
			}

			proxy := newRecordingProxy(t, samples.URL)
			src := cswSource(proxy.URL+"/csw", harvest.SchemaFGDC, map[string]string{"max_records": "5"})
			first := h.Harvest(t, src)
			pipelinetest.MustComplete(t, first)
			require.Equal(t, 13, first.Total)
			require.Equal(t, 13, first.Added, "%+v", first)
			require.ElementsMatch(t, pycswtest.SampleIdentifiers, live(first.SourceID))
			rec, err := st.RecordLatest(t.Context(), &store.RecordLatestParams{SourceID: first.SourceID,
				Identifier: pycswtest.SampleIdentifiers[0]})
			require.NoError(t, err)
			require.Contains(t, rec.SourceRaw, "<datasetid>"+pycswtest.SampleIdentifiers[0]+"</datasetid>", "an FGDC record")
			again := h.Harvest(t, src)
			pipelinetest.MustComplete(t, again)
			require.Equal(t, 13, again.Unchanged, "%+v", again)

			rep := h.Harvest(t, cswSource(corpusCSW.URL, harvest.SchemaFGDC, nil))
			pipelinetest.MustComplete(t, rep)
			require.Equal(t, 3, rep.Added, "%+v", rep)
			require.ElementsMatch(t, links, live(rep.SourceID))
		})
	}
}

// TestCSWSchemaTypeChangeReKeys: a csw source's schema type picks the output schema its
// records come in, and so their keys (csw_key.go): the recorded ArcGIS Geoportal's records are
// keyed by gmd:fileIdentifier in ISO 19139 and by their citation's onlink in FGDC. Harvested
// again as fgdc, the source would delete every dataset it has and add them under new keys:
// the delete guard stops the job, deleting nothing, as docs/geospatial.md says; a
// force_harvest does it.
func TestCSWSchemaTypeChangeReKeys(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	gp := recordedCSW(t, "geoportal2")
	iso := h.Harvest(t, cswSource(gp.URL+"/geoportal/csw", harvest.SchemaISO19115_1, nil))
	pipelinetest.MustComplete(t, iso)
	before := h.LiveIdentifiers(t, iso.SourceID)
	require.Len(t, before, 2)

	fgdc := h.Harvest(t, cswSource(gp.URL+"/geoportal/csw", harvest.SchemaFGDC, nil))
	require.Equal(t, iso.SourceID, fgdc.SourceID, "the same source, its schema type changed")
	require.Equal(t, "error", fgdc.Status)
	require.Len(t, fgdc.JobErrors, 1)
	// "of the source's N live datasets": N counts held ones too, and a parallel test of the
	// package may harvest the same recorded catalogue into its own source of this database.
	require.Regexp(t, `^DeleteGuard: the listing would delete 2 of the source's \d+ live datasets .*nothing was deleted`, fgdc.JobErrors[0])
	// Nothing deleted. A csw source's pages go on to SYNC while the listing is still read, so a
	// record or two under its new key may be written before COMPARE's guard ends the job (the
	// same race a WAF had before it was listed whole): only the deletes are held here.
	require.Subset(t, h.LiveIdentifiers(t, iso.SourceID), before, "nothing deleted")

	force := h.Harvest(t, pipelinetest.Source{URL: gp.URL + "/geoportal/csw", SourceType: harvest.SourceCSW,
		SchemaType: harvest.SchemaFGDC, JobType: harvest.JobForceHarvest})
	pipelinetest.MustComplete(t, force)
	// The old keys are deleted; the new ones end live: added, or already written by the stopped
	// job (above) and then unchanged or updated.
	require.Equal(t, 2, force.Deleted, "%+v", force)
	require.Equal(t, 2, force.Added+force.Updated+force.Unchanged, "%+v", force)
	require.Equal(t, []string{"https://pubs.usgs.gov/ds/1001/", "https://pubs.usgs.gov/ds/1002/"}, h.LiveIdentifiers(t, iso.SourceID))
}
