// Package parity_test holds that bleve and OpenSearch answer the same search.Query with the
// same datasets, totals and facet counts, and the same order where the sort is deterministic
// (issue 35 §3): real DCAT-US catalogs of the corpus go into both, and every query runs on both.
package parity_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/bleve"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
	"github.com/harvester-dev/harvester/store"
)

// catalogs are corpus catalogs with keywords, themes, formats and spatial values of every form
// (boxes, GeoJSON, place names).
var catalogs = map[string]string{"dcatus/agency-dhs-2025-07.data.json": "DHS", "dcatus/agency-dol-2025-07.data.json": "DOL",
	"dcatus/agency-gsa-2025-07.data.json": "GSA", "dcatus/datajson-large-spatial.data.json": "Spatial",
	"dcatus/agency-cfpb-2025-07.data.json": "CFPB", "dcatus/agency-energy-2025-07.data.json": "Énergie",
	"dcatus/arcgis-hub-apur-paris.data.json": "APUR"}

func documents(t *testing.T) []search.Document {
	var docs []search.Document
	for name, org := range catalogs {
		data, err := os.ReadFile(corpustest.Path(t, name))
		require.NoError(t, err)
		var cat struct {
			Dataset []json.RawMessage `json:"dataset"`
		}
		require.NoError(t, json.Unmarshal(data, &cat))
		for i, raw := range cat.Dataset {
			id := fmt.Sprintf("%s-%05d", strings.ToLower(org), i)
			docs = append(docs, search.FromDataset(&store.Dataset{ID: id, Slug: id, SourceID: org, Identifier: id,
				RecordID: id, DCAT: raw}, org))
		}
	}
	// The corpus's DCAT-US catalogs have few boxes: a grid of extents over the globe (boxes,
	// points, boxes across the 180th meridian, GeoJSON), and place names.
	for i := range 300 {
		w, s := float64(i%36*10-180)+0.5, float64(i/36*20-80)+0.25
		spatial := fmt.Sprintf(`"%g,%g,%g,%g"`, w, s, w+float64(i%7), s+float64(i%5))
		switch i % 6 {
		case 1:
			spatial = fmt.Sprintf(`{"type": "Point", "coordinates": [%g, %g]}`, w, s)
		case 2:
			spatial = fmt.Sprintf(`"%g,%g,%g,%g"`, 175+float64(i%5), s, -179+float64(i%3), s+3)
		case 3:
			spatial = `"Ohio"`
		}
		id := fmt.Sprintf("geo-%05d", i)
		docs = append(docs, search.FromDataset(&store.Dataset{ID: id, Slug: id, SourceID: "geo", Identifier: id, RecordID: id,
			DCAT: json.RawMessage(fmt.Sprintf(`{"title": "Extent %d", "spatial": %s}`, i, spatial))}, "Geo"))
	}
	return docs
}

func load(t *testing.T, idx search.Index, docs []search.Document) {
	for i := 0; i < len(docs); i += 500 {
		var ops []search.Op
		for j := i; j < min(i+500, len(docs)); j++ {
			ops = append(ops, search.Op{ID: docs[j].ID, Doc: &docs[j]})
		}
		errs, err := idx.Apply(t.Context(), ops)
		require.NoError(t, err)
		require.NoError(t, errors.Join(errs...))
	}
	require.NoError(t, idx.Refresh(t.Context()))
}

// TestBleveAndOpenSearchAgree runs each query on both indexes and compares the totals, the
// facets, every hit's id (all pages, per_page 1000) and, for sorts by title or modified (and no
// text), the order.
func TestBleveAndOpenSearchAgree(t *testing.T) {
	url := searchtest.OpenSearchURL(t)
	b, err := bleve.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	alias := "parity-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	o, err := opensearch.Open(t.Context(), url, alias)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, o.Drop(context.Background())) })
	docs := documents(t)
	require.Greater(t, len(docs), 1000)
	extents := 0
	for _, d := range docs {
		if d.Extent != nil {
			extents++
		}
	}
	require.Greater(t, extents, 50, "datasets with a spatial extent")
	load(t, b, docs)
	load(t, o, docs)

	all, err := b.Search(t.Context(), search.Query{FacetSize: 5})
	require.NoError(t, err)
	require.Equal(t, len(docs), all.Total)
	queries := []search.Query{
		{}, {Sort: search.SortModified}, {Sort: search.SortTitle},
		{Text: "data"}, {Text: "health care"}, {Text: `"health care"`}, {Text: "emergency management"},
		{Text: `"emergency management"`}, {Text: "the of and"}, {Text: "energy efficiency buildings"},
		{Text: `labor "wage and hour"`}, {Text: "Énergie"}, {Text: "data", Sort: search.SortModified},
		{Text: "survey", Sort: search.SortTitle},
		// Words bleve's Snowball stop list drops and Lucene's English list keeps (setupstest found
		// "Well-Being": 2 hits on bleve, 1 on OpenSearch).
		{Text: "Well-Being"}, {Text: "financial well being"}, {Text: "which data"}, {Text: "should have"},
		{BBox: &search.BBox{West: -125, South: 24, East: -66, North: 50}},
		{BBox: &search.BBox{West: -180, South: -90, East: 180, North: 90}, Sort: search.SortModified},
		{BBox: &search.BBox{West: -80, South: 35, East: -75, North: 40}},
		{BBox: &search.BBox{West: 170, South: -60, East: -120, North: 60}},
		{BBox: &search.BBox{West: 10, South: 10, East: 20, North: 20}},
		{BBox: &search.BBox{West: 179, South: -90, East: -179, North: 90}, Sort: search.SortTitle},
		{BBox: &search.BBox{West: 0, South: -80, East: 0.5, North: 80}},
		{BBox: &search.BBox{West: -179.9, South: -90, East: -170, North: 90}}, // meets extents across the meridian by their west part
		{BBox: &search.BBox{West: 2.2, South: 48.8, East: 2.5, North: 48.9}},
		{Text: "data", BBox: &search.BBox{West: -100, South: 30, East: -90, North: 40}},
	}
	// Each facet's top values as filters, kept and excluded, alone and with text.
	for _, field := range search.FacetFields {
		require.NotEmpty(t, all.Facets[field], "the corpus has %s values", field)
		for _, f := range all.Facets[field][:min(3, len(all.Facets[field]))] {
			queries = append(queries,
				search.Query{Filters: []search.Filter{{Field: field, Value: f.Value}}},
				search.Query{Filters: []search.Filter{{Field: field, Value: strings.ToUpper(f.Value), Exclude: true}}},
				search.Query{Text: "data", Filters: []search.Filter{{Field: field, Value: f.Value}}, Sort: search.SortTitle})
		}
	}
	for _, q := range queries {
		q.PerPage = search.MaxPerPage
		rb, err := b.Search(t.Context(), q)
		require.NoError(t, err)
		ro, err := o.Search(t.Context(), q)
		require.NoError(t, err)
		name := fmt.Sprintf("%+v", q)
		require.Equal(t, rb.Total, ro.Total, name)
		require.Equal(t, rb.Facets, ro.Facets, name)
		idsB, idsO := hitIDs(t, b, q, rb), hitIDs(t, o, q, ro)
		if q.Sort != search.SortRelevance || q.Text == "" {
			require.Equal(t, idsB, idsO, "the same order: %s", name)
		} else {
			require.ElementsMatch(t, idsB, idsO, name)
		}
		if q.BBox != nil {
			for _, d := range docs {
				in := d.Extent != nil && q.BBox.Intersects(*d.Extent)
				if q.Text == "" {
					require.Equal(t, in, slices.Contains(idsB, d.ID), "%s: %s", name, d.ID)
				}
			}
		}
	}
}

// hitIDs pages through every hit of q (at most search.MaxWindow).
func hitIDs(t *testing.T, idx search.Index, q search.Query, first *search.Result) []string {
	var out []string
	res := first
	for page := 1; ; page++ {
		for _, h := range res.Hits {
			out = append(out, h.ID)
		}
		if page*q.PerPage >= min(res.Total, search.MaxWindow) {
			return out
		}
		q.Page = page + 1
		var err error
		res, err = idx.Search(t.Context(), q)
		require.NoError(t, err)
	}
}
