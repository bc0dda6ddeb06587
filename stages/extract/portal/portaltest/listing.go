package portaltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// API is a portal listing API the Listing emulator serves.
type API struct {
	Name        string // the source type and options that list it, e.g. "opendatasoft api=v1"
	Path        string // the listing's path
	OffsetParam string // the query parameter of the page's offset
	SizeParam   string // the query parameter of the page size
	Start       int    // the offset of the first item: 0, or 1 (ArcGIS)
	// page renders a page of item ids (ids[offset:…]) of a listing of count items.
	page func(ids []string, offset, count int, more bool) any
}

// The listing APIs of Socrata, ArcGIS and OpenDataSoft, as their pagers read them.
var (
	SocrataAPI = API{Name: "socrata", Path: "/api/catalog/v1", OffsetParam: "offset", SizeParam: "limit",
		page: func(ids []string, _, count int, _ bool) any {
			results := make([]any, len(ids))
			for i, id := range ids {
				results[i] = map[string]any{"resource": map[string]any{"id": id, "name": "Item " + id},
					"metadata": map[string]any{"domain": "127.0.0.1"}} // the httptest server's host: the source's domain
			}
			return map[string]any{"results": results, "resultSetSize": count}
		}}
	ArcGISSearchAPI = API{Name: "arcgis api=search", Path: "/sharing/rest/search", OffsetParam: "start", SizeParam: "num",
		Start: 1, page: func(ids []string, offset, count int, more bool) any {
			results := make([]any, len(ids))
			for i, id := range ids {
				results[i] = map[string]any{"id": id, "title": "Item " + id}
			}
			next := -1
			if more {
				next = offset + len(ids)
			}
			return map[string]any{"total": count, "start": offset, "num": len(ids), "nextStart": next, "results": results}
		}}
	ArcGISHubAPI = API{Name: "arcgis api=hub", Path: "/api/search/v1/collections/dataset/items", OffsetParam: "startindex",
		SizeParam: "limit", Start: 1, page: func(ids []string, _, count int, more bool) any {
			features := make([]any, len(ids))
			for i, id := range ids {
				features[i] = map[string]any{"type": "Feature", "id": id, "properties": map[string]any{"title": "Item " + id}}
			}
			links := []any{map[string]any{"rel": "self"}}
			if more {
				links = append(links, map[string]any{"rel": "next"})
			}
			return map[string]any{"type": "FeatureCollection", "numberMatched": count, "features": features, "links": links}
		}}
	ODSAPI = API{Name: "opendatasoft", Path: "/api/explore/v2.1/catalog/datasets", OffsetParam: "offset", SizeParam: "limit",
		page: func(ids []string, _, count int, _ bool) any {
			results := make([]any, len(ids))
			for i, id := range ids {
				results[i] = map[string]any{"dataset_id": id, "dataset_uid": "da_" + id,
					"metas": map[string]any{"default": map[string]any{"title": "Item " + id}}}
			}
			return map[string]any{"total_count": count, "results": results}
		}}
	ODSV1API = API{Name: "opendatasoft api=v1", Path: "/api/datasets/1.0/search/", OffsetParam: "start", SizeParam: "rows",
		page: func(ids []string, _, count int, _ bool) any {
			datasets := make([]any, len(ids))
			for i, id := range ids {
				datasets[i] = map[string]any{"datasetid": id, "metas": map[string]any{"title": "Item " + id}}
			}
			return map[string]any{"nhits": count, "datasets": datasets}
		}}
)

// Listing is an emulated paged listing of one of the APIs above at Server.URL, over N items
// with ids "item-00001"…, with the faults of a hostile portal under the test's control (set
// them before the listing runs).
type Listing struct {
	Server *httptest.Server
	API    API
	N      int
	// CountFor, when set, is the total reported for a page by its offset (a count that lies);
	// default N.
	CountFor func(offset int) int
	// StartFor, when set, is the offset actually served for a requested offset (a portal that
	// ignores it); default the offset asked for.
	StartFor func(offset int) int
	// MaxSize, when set, caps the items of a page whatever the page size asked for.
	MaxSize int
	// IgnoreSize serves every item from the offset served on, whatever the page size asks for.
	IgnoreSize bool

	mu       sync.Mutex
	requests []string
}

// NewListing starts an emulated listing of api over n items until the test ends.
func NewListing(t testing.TB, api API, n int) *Listing {
	t.Helper()
	l := &Listing{API: api, N: n}
	l.Server = httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(l.Server.Close)
	return l
}

// ItemID is the id of the i-th item (0-based).
func ItemID(i int) string { return fmt.Sprintf("item-%05d", i+1) }

// Requests returns the request URIs served so far (path and query).
func (l *Listing) Requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.requests...)
}

func (l *Listing) serve(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.requests = append(l.requests, r.URL.RequestURI())
	l.mu.Unlock()
	if r.URL.Path != l.API.Path {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	offset, err1 := strconv.Atoi(q.Get(l.API.OffsetParam))
	size, err2 := strconv.Atoi(q.Get(l.API.SizeParam))
	if err1 != nil || err2 != nil {
		http.Error(w, "bad paging parameters", http.StatusBadRequest)
		return
	}
	count, served := l.N, offset
	if l.CountFor != nil {
		count = l.CountFor(offset)
	}
	if l.StartFor != nil {
		served = l.StartFor(offset)
	}
	switch {
	case l.IgnoreSize:
		size = l.N
	case l.MaxSize > 0:
		size = min(size, l.MaxSize)
	}
	var ids []string
	for i := served - l.API.Start; i >= 0 && i < min(served-l.API.Start+size, l.N); i++ {
		ids = append(ids, ItemID(i))
	}
	more := served-l.API.Start+len(ids) < count
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(l.API.page(ids, served, count, more))
}
