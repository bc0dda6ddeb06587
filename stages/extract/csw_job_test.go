package extract_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

const gmdSchema = "http://www.isotc211.org/2005/gmd"

// cswSource is a csw source at url with the ISO schema type and options.
func cswSource(url string, schema harvest.SchemaType, options map[string]string) pipelinetest.Source {
	return pipelinetest.Source{URL: url, SourceType: harvest.SourceCSW, SchemaType: schema, Options: options}
}

// TestHarvestRecordedCSWs: recorded GeoNetwork 3.x/4.x and ArcGIS Geoportal Server 2.x
// answers harvest with exact counts: GeoNetwork 3 by POST in ISO 19139 (gmd), 5 records over 3
// pages of 2, then all unchanged; GeoNetwork 4 by GET (binding=get), its last page's
// nextRecord past the count; Geoportal's one page with namespaces declared on the answer's
// root, a record without fileIdentifier (MissingIdentifier) and a repeated one
// (DuplicateIdentifier, the first kept); Geoportal asked for FGDC CSDGM (schema fgdc) by its
// csdgm output schema, keyed by each record's onlink.
func TestHarvestRecordedCSWs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := pipelinetest.New(t)

	gn3 := recordedCSW(t, "geonetwork3")
	src := cswSource(gn3.URL+"/geonetwork/srv/eng/csw?service=CSW&request=GetCapabilities&version=2.0.2",
		harvest.SchemaISO19115_1, map[string]string{"max_records": "2"})
	first := h.Harvest(t, src)
	pipelinetest.MustComplete(t, first)
	require.Equal(t, 5, first.Total)
	require.Equal(t, 5, first.Added, "%v", h.ErrorMessages(t, first.JobID, harvest.SeverityError))
	reqs := gn3.Requests()
	require.Len(t, reqs, 3, "%+v", reqs)
	slices.SortFunc(reqs, func(a, b cswRequest) int { return a.Start - b.Start }) // pages are fetched concurrently
	for i, r := range reqs {
		require.Equal(t, "POST", r.Method)
		require.Equal(t, 1+2*i, r.Start)
		require.Equal(t, gmdSchema, r.OutputSchema)
		require.Equal(t, "full", r.ElementSet)
		require.Empty(t, r.Constraint, "a first harvest asks for every record")
	}
	d, err := h.Store.DatasetGet(ctx, &store.DatasetGetParams{SourceID: first.SourceID,
		Identifier: "b3f4a2d0-6c1e-4c8e-9d5a-0a1b2c3d4e5f"})
	require.NoError(t, err)
	rec, err := h.Store.RecordGet(ctx, d.RecordID)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(rec.SourceRaw, `<?xml version="1.0" encoding="UTF-8"?>`+"\n<gmd:MD_Metadata"), rec.SourceRaw[:200])
	require.Contains(t, string(d.DCAT), "Sea Surface Temperature, Gulf of Maine")
	second := h.Harvest(t, cswSource(src.URL, harvest.SchemaISO19115_1, map[string]string{"max_records": "2",
		"modified_filter": "off"}))
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 5, second.Unchanged)

	gn4 := recordedCSW(t, "geonetwork4")
	rep := h.Harvest(t, cswSource(gn4.URL+"/geonetwork/srv/eng/csw", harvest.SchemaISO19115_1,
		map[string]string{"max_records": "2", "binding": "get"}))
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, 4, rep.Added)
	for _, r := range gn4.Requests() {
		require.Equal(t, "GET", r.Method)
	}
	require.Len(t, gn4.Requests(), 3, "2 pages, and the page past a full last one (an empty page checks the count)")

	gp := recordedCSW(t, "geoportal2")
	rep = h.Harvest(t, cswSource(gp.URL+"/geoportal/csw", harvest.SchemaISO19115_1, nil))
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, 4, rep.Total, "%+v %v", rep, h.ErrorMessages(t, rep.JobID, harvest.SeverityError))
	require.Equal(t, 2, rep.Added, "%+v %v", rep, h.ErrorMessages(t, rep.JobID, harvest.SeverityError))
	require.Equal(t, 2, rep.Errored)
	msgs := strings.Join(h.ErrorMessages(t, rep.JobID, harvest.SeverityError), "\n")
	require.Contains(t, msgs, "has no identifier (gmd:fileIdentifier/gco:CharacterString)")
	require.Contains(t, msgs, `repeats identifier "{5D2A3F10-1B2C-4D3E-8F40-ABCDEF012345}"`)
	require.Len(t, gp.Requests(), 1, "one page of at most 100 (max_records' default) holds all 4")

	gp.Reset()
	rep = h.Harvest(t, cswSource(gp.URL+"/geoportal/csw?fgdc", harvest.SchemaFGDC, nil))
	require.Equal(t, 2, rep.Total)
	require.Equal(t, "http://www.opengis.net/cat/csw/csdgm", gp.Requests()[0].OutputSchema)
	require.NotContains(t, strings.Join(h.ErrorMessages(t, rep.JobID, harvest.SeverityError), "\n"), "MissingIdentifier")
}
