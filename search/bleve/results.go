package bleve

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/harvester-dev/harvester/search"
)

// resultCacheSize bounds the answers a results cache holds; when full it starts again empty.
const resultCacheSize = 1024

// results caches Search's answers by query until the next write. A cold search still costs
// in proportion to its matches (the query's evaluation; facets and field sorts come from the
// uninverted fields, facets.go: about 8 ms for a page without text over 100,000 documents, tens
// of milliseconds for a common word sorted by relevance, docs/benchmarks.md), and the public
// search's first page, and its popular facets, are asked again and again between harvests. Every Apply and Rebuild empties it (gen counts them), and an answer is kept
// only when no write began or ended while it was computed, so a cached answer is never older
// than the last write.
type results struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]*search.Result
}

// key is the cache key of a normalized query, or "" when it cannot be made.
func resultKey(q search.Query, folded bool) string {
	b, err := json.Marshal(struct {
		Q      search.Query
		Folded bool
	}{q, folded})
	if err != nil {
		return ""
	}
	return string(b)
}

// get returns a copy of the cached answer to key and the generation to store a new one at.
func (c *results) get(key string) (*search.Result, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if res, ok := c.m[key]; ok && key != "" {
		return clone(res), c.gen
	}
	return nil, c.gen
}

// put keeps res for key, unless a write happened since get gave gen.
func (c *results) put(key string, gen uint64, res *search.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if key == "" || gen != c.gen {
		return
	}
	if c.m == nil || len(c.m) >= resultCacheSize {
		c.m = map[string]*search.Result{}
	}
	c.m[key] = clone(res)
}

// invalidate empties the cache; writers call it before and after they write.
func (c *results) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.m = nil
}

// clone copies a Result deep enough that callers may change what they get.
func clone(r *search.Result) *search.Result {
	out := &search.Result{Total: r.Total, Hits: slices.Clone(r.Hits), Facets: maps.Clone(r.Facets)}
	for i := range out.Hits {
		out.Hits[i].Formats = slices.Clone(out.Hits[i].Formats)
	}
	for k, v := range out.Facets {
		out.Facets[k] = slices.Clone(v)
	}
	return out
}
