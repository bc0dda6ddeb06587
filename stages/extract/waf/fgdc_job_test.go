package waf_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// fgdcCorpus are the real CSDGM records of the corpus and their titles.
var fgdcCorpus = map[string]string{
	"fgdc-catalog-data-gov-metadata-1.xml": "USGS Watershed Boundary Dataset (WBD) Overlay Map Service from The National Map - " +
		"National Geospatial Data Asset (NGDA) Watershed Boundary Dataset (WBD)",
	"fgdc-usgs-us-topo-collection-bom-doctype.xml": "USGS US Topo Map Collection",
	"fgdc-usgs-white-fronted-goose.xml":            "Greater White-Fronted Goose (Anser albifrons) Microsatellite DNA Data, Alaska, 1989-2006",
}

// fgdcWAF serves a dated WAF listing of the corpus's CSDGM records, an ISO record (a WAF may
// mix standards: each record is mapped by its root element), a CSDGM record without a title
// and one with a 50 MB abstract, over the 16 MiB record cap.
func fgdcWAF(t *testing.T) (url string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	listing := "<html><body><pre>\n"
	add := func(name, path string) {
		files["/fgdc/"+name] = path
		listing += fmt.Sprintf("<a href=%q>%s</a>  2024-01-01 00:00  1K\n", name, name)
	}
	for name := range fgdcCorpus {
		add(name, corpustest.Path(t, filepath.Join("iso19115", name)))
	}
	add("iso.xml", corpustest.Path(t, "iso19115/datagov-valid-iso1-gmd.xml"))
	untitled := filepath.Join(dir, "untitled.xml")
	require.NoError(t, os.WriteFile(untitled, []byte(`<?xml version="1.0"?><metadata><idinfo><citation><citeinfo>`+
		`<origin>USGS</origin><pubdate>2020</pubdate></citeinfo></citation></idinfo></metadata>`), 0o644))
	add("untitled.xml", untitled)
	huge := filepath.Join(dir, "huge.xml")
	f, err := os.Create(huge)
	require.NoError(t, err)
	_, err = f.WriteString("<metadata><idinfo><citation><citeinfo><title>Huge</title></citeinfo></citation><descript><abstract>")
	require.NoError(t, err)
	line := strings.Repeat("a", 1023) + "\n"
	for range 50 << 10 {
		_, err = f.WriteString(line)
		require.NoError(t, err)
	}
	_, err = f.WriteString("</abstract></descript></idinfo></metadata>")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	add("huge.xml", huge)
	listing += "</pre></body></html>"
	return fileWAF(t, "/fgdc/", listing, files).URL + "/fgdc/"
}

// A WAF of FGDC CSDGM records (schema type fgdc) harvests every real record as a valid
// DCAT-US 1.1 non-federal dataset; a record without a title and one over the record cap are
// error rows naming why; the second run changes nothing.
func TestHarvestFGDCWAF(t *testing.T) {
	t.Parallel()
	url := fgdcWAF(t)
	h := pipelinetest.New(t)
	ctx := context.Background()
	src := pipelinetest.Source{URL: url, SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaFGDC}
	first := h.Harvest(t, src)
	require.Equal(t, "complete", first.Status, first.JobErrors)
	require.Equal(t, [3]int{6, 4, 2}, [3]int{first.Total, first.Added, first.Errored}, "total, added, errored")

	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: first.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 4)
	v, err := dcatus.NewValidator(string(harvest.SchemaDCATUS11NonFederal))
	require.NoError(t, err)
	titles := map[string]string{}
	for _, d := range datasets {
		problems, err := v.Validate(d.DCAT)
		require.NoError(t, err)
		require.Empty(t, problems, "%s", d.DCAT)
		var ds dcatus.Dataset
		require.NoError(t, json.Unmarshal(d.DCAT, &ds))
		require.Equal(t, d.Identifier, ds.Identifier, "the identifier is the file's URL")
		titles[strings.TrimPrefix(d.Identifier, url)] = ds.Title
	}
	for name, title := range fgdcCorpus {
		require.Equal(t, title, titles[name], name)
	}
	require.Contains(t, titles, "iso.xml", "the ISO record of the fgdc WAF is mapped as ISO")

	errs, _, err := h.Store.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: first.JobID,
		Severity: harvest.SeverityError, PageParams: store.PageParams{Limit: 100}})
	require.NoError(t, err)
	reasons := map[string]string{}
	for _, e := range errs {
		reasons[strings.TrimPrefix(e.Identifier, url)] = e.Type + ": " + e.Message
	}
	require.Len(t, reasons, 2, "%v", reasons)
	require.Contains(t, reasons["untitled.xml"], "TransformError: ")
	require.Contains(t, reasons["untitled.xml"], "metadata/idinfo/citation/citeinfo/title is missing or empty")
	require.Contains(t, reasons["huge.xml"], "16777216", "the record cap is named")

	second := h.Harvest(t, src)
	require.Equal(t, "complete", second.Status)
	require.Equal(t, [4]int{6, 0, 4, 2}, [4]int{second.Total, second.Added, second.Unchanged, second.Errored},
		"total, added, unchanged, errored")
	again, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: first.SourceID})
	require.NoError(t, err)
	require.Len(t, again, 4)
}

// One FGDC file is a one-record document source; a waf-collection of FGDC records makes the
// parent (a collection record) the isPartOf of each child.
func TestHarvestFGDCDocumentAndCollection(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	rep := h.Harvest(t, pipelinetest.Source{URL: corpustest.Path(t, "iso19115/fgdc-usgs-white-fronted-goose.xml"),
		SchemaType: harvest.SchemaFGDC})
	require.Equal(t, "complete", rep.Status, rep.JobErrors)
	require.Equal(t, [2]int{1, 1}, [2]int{rep.Total, rep.Added})
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 1)
	var goose dcatus.Dataset
	require.NoError(t, json.Unmarshal(datasets[0].DCAT, &goose))
	require.Equal(t, "https://doi.org/10.5066/F71G0JGN", goose.LandingPage)
	require.Equal(t, fgdcCorpus["fgdc-usgs-white-fronted-goose.xml"], goose.Title)

	// The collection's children are the same FGDC files: a catalog of its own, else they would
	// be held as cross-source duplicates of the document source's (same landingPage).
	h = pipelinetest.New(t)
	files := map[string]string{}
	listing := "<html><body><pre>\n"
	for _, name := range []string{"fgdc-catalog-data-gov-metadata-1.xml", "fgdc-usgs-white-fronted-goose.xml"} {
		files["/coll/"+name] = corpustest.Path(t, "iso19115/"+name)
		listing += fmt.Sprintf("<a href=%q>%s</a>  2024-01-01 00:00  1K\n", name, name)
	}
	files["/parent.xml"] = corpustest.Path(t, "iso19115/fgdc-usgs-us-topo-collection-bom-doctype.xml")
	srv := fileWAF(t, "/coll/", listing+"</pre></body></html>", files)
	parent := srv.URL + "/parent.xml"
	rep = h.Harvest(t, pipelinetest.Source{URL: srv.URL + "/coll/", SourceType: harvest.SourceWAFCollection,
		CollectionParentURL: parent, SchemaType: harvest.SchemaFGDC})
	require.Equal(t, "complete", rep.Status, rep.JobErrors)
	require.Equal(t, [2]int{3, 3}, [2]int{rep.Total, rep.Added})
	datasets, err = h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 3)
	for _, d := range datasets {
		var ds dcatus.Dataset
		require.NoError(t, json.Unmarshal(d.DCAT, &ds))
		if d.Identifier == parent {
			require.Empty(t, ds.IsPartOf)
			require.Equal(t, "USGS US Topo Map Collection", ds.Title)
			continue
		}
		require.Equal(t, parent, ds.IsPartOf, d.Identifier)
	}
}
