// Package opensearch is the search index on OpenSearch 2.x, through
// github.com/opensearch-project/opensearch-go/v4. Datasets live in a concrete index that an
// alias (default "harvester-datasets") points at, as its write index: the first one
// "<alias>-0", each that Rebuild makes "<alias>-<unix nanoseconds>". Every read and write goes
// through the alias, and Rebuild fills a new concrete index and swaps the alias in one
// _aliases request (https://opensearch.org/docs/2.19/im-plugin/index-alias/). Open refuses an
// alias on several indices or without a write index (ErrAlias). Writes never ask for a
// refresh; documents become searchable at the index's refresh interval.
package opensearch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"github.com/harvester-dev/harvester/search"
)

// DefaultAlias is the alias the index is read and written through.
const DefaultAlias = "harvester-datasets"

// Index is a search.Index on OpenSearch.
type Index struct {
	client *opensearchapi.Client
	alias  string
	// folded is set when the alias's index has the "folded" sub-fields; an index created
	// before them filters on the published values until a reindex (Rebuild) replaces it.
	folded atomic.Bool
	// outdated is set when the alias's index has another mapping than this version's.
	outdated atomic.Bool
}

var _ search.Index = (*Index)(nil)

// inspect reads the mapping of the alias's index: whether it maps keyword.folded (indexes
// created before the folded sub-fields do not), and whether its _meta stamp is this version's
// mapping (see mappingVersion).
func (x *Index) inspect(ctx context.Context) (folded, current bool, err error) {
	var out map[string]struct {
		Mappings struct {
			Meta       map[string]any `json:"_meta"`
			Properties map[string]struct {
				Fields map[string]json.RawMessage `json:"fields"`
			} `json:"properties"`
		} `json:"mappings"`
	}
	status, err := x.do(ctx, http.MethodGet, "/"+x.alias+"/_mapping", nil, &out)
	if err = statusErr(status, err); err != nil {
		return false, false, fmt.Errorf("opensearch: mapping of %s: %w", x.alias, err)
	}
	folded, current = len(out) > 0, len(out) > 0
	for _, idx := range out {
		if _, ok := idx.Mappings.Properties["keyword"].Fields["folded"]; !ok {
			folded = false
		}
		if idx.Mappings.Meta[metaVersion] != mappingVersion {
			current = false
		}
	}
	return folded, current, nil
}

// Outdated reports whether the alias's index was made by another mapping than this version's
// (its _meta stamp differs, or it has none), as read by Open; after a Rebuild it is false.
func (x *Index) Outdated() bool { return x.outdated.Load() }

// Alias returns the alias the index is used through.
func (x *Index) Alias() string { return x.alias }

// mapping is the explicit mapping of a dataset index: full text with english_folded (the
// english analyzer of analysis-common rebuilt as its documentation gives it, with asciifolding
// after lowercase), exact keyword fields for facets with a "folded" sub-field (the "folded"
// normalizer: lowercase, asciifolding) for the organization and keyword filters, dates that
// tolerate odd values, the title's sort key (title_sort: search.SortKey, computed in Go, stored
// as is with doc values; ignore_above is well over its SortKeyMax bytes, as it counts UTF-16
// units), the spatial extent as four doubles (search.Extent), the landing page and the temporal
// coverage (DCAT-US 1.1's text or "start/end") kept for display only, and the whole DCAT
// record stored but not indexed. A term query on a normalized keyword field normalizes its value too.
// https://opensearch.org/docs/2.19/analyzers/language-analyzers/english/,
// https://opensearch.org/docs/2.19/analyzers/normalizers/
var mapping = stamp(map[string]any{
	"settings": map[string]any{"number_of_shards": 1, "analysis": map[string]any{
		"filter": map[string]any{
			"english_stop":               map[string]any{"type": "stop", "stopwords": "_english_"},
			"english_stemmer":            map[string]any{"type": "stemmer", "language": "english"},
			"english_possessive_stemmer": map[string]any{"type": "stemmer", "language": "possessive_english"},
		},
		"analyzer": map[string]any{
			"english_folded": map[string]any{"type": "custom", "tokenizer": "standard", "filter": []string{
				"english_possessive_stemmer", "lowercase", "asciifolding", "english_stop", "english_stemmer"}},
		},
		"normalizer": map[string]any{
			"folded": map[string]any{"type": "custom", "filter": []string{"lowercase", "asciifolding"}},
		},
	}},
	"mappings": map[string]any{
		"dynamic": "strict",
		"properties": map[string]any{
			"id":   keyword(),
			"slug": keyword(),
			"title": map[string]any{"type": "text", "analyzer": "english_folded", "fields": map[string]any{
				"raw": map[string]any{"type": "keyword", "ignore_above": 1024}}},
			"title_sort":  map[string]any{"type": "keyword", "doc_values": true, "ignore_above": 4 * search.SortKeyMax},
			"description": map[string]any{"type": "text", "analyzer": "english_folded"},
			"keyword":     keywordText(true),
			"theme":       keywordText(true),
			"publisher": map[string]any{"type": "text", "analyzer": "english_folded", "fields": map[string]any{
				"raw":    map[string]any{"type": "keyword", "ignore_above": 1024},
				"folded": map[string]any{"type": "keyword", "normalizer": "folded", "ignore_above": 1024}}},
			"organization":       keywordText(true),
			"identifier":         keyword(),
			"landing_page":       shown(),
			"distribution_title": map[string]any{"type": "text", "analyzer": "english_folded"},
			"distribution_format": map[string]any{"type": "keyword", "ignore_above": 1024, "fields": map[string]any{
				"folded": map[string]any{"type": "keyword", "normalizer": "folded", "ignore_above": 1024}}},
			"modified":  map[string]any{"type": "date", "ignore_malformed": true},
			"issued":    map[string]any{"type": "date", "ignore_malformed": true},
			"source_id": keyword(),
			"record_id": keyword(),
			"extent": map[string]any{"properties": map[string]any{ // search.Extent
				"west": double(), "south": double(), "east": double(), "north": double()}},
			"temporal": shown(),
			"dcat":     map[string]any{"type": "object", "enabled": false},
		},
	},
})

// metaVersion is the key of the mapping's version in the index mapping's _meta.
const metaVersion = "harvester_mapping"

// mappingVersion identifies this version's mapping (settings included): the first 16 hex
// digits of the SHA-256 of its JSON without _meta. stamp writes it in the mapping's _meta, so
// Open can tell an index made by another mapping (Outdated) without comparing mappings that
// OpenSearch returns with its defaults filled in.
var mappingVersion string

// stamp sets mappingVersion from m and returns m with it in mappings._meta.
func stamp(m map[string]any) map[string]any {
	b, err := json.Marshal(m) // map keys sorted: the same mapping gives the same bytes
	if err != nil {
		panic(err) // a literal of maps, strings and numbers: cannot fail
	}
	sum := sha256.Sum256(b)
	mappingVersion = hex.EncodeToString(sum[:8])
	m["mappings"].(map[string]any)["_meta"] = map[string]any{metaVersion: mappingVersion}
	return m
}

// Properties returns the names of the mapping's top-level properties, sorted: the
// search.Document fields (by JSON name) that an index of this version maps.
func Properties() []string {
	props := mapping["mappings"].(map[string]any)["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

// shown is a field kept for display only (in _source): not searched, sorted or aggregated, so
// a value of any length indexes (a keyword's index and doc values take at most 32,766 bytes).
func shown() map[string]any {
	return map[string]any{"type": "keyword", "index": false, "doc_values": false}
}

func double() map[string]any { return map[string]any{"type": "double", "doc_values": false} }

func keyword() map[string]any { return map[string]any{"type": "keyword", "ignore_above": 1024} }

// keywordText is a keyword field (the published value, for facets) with a text sub-field and,
// when folded, a "folded" sub-field for filters that ignore case and accents.
func keywordText(folded bool) map[string]any {
	fields := map[string]any{"text": map[string]any{"type": "text", "analyzer": "english_folded"}}
	if folded {
		fields["folded"] = map[string]any{"type": "keyword", "normalizer": "folded", "ignore_above": 1024}
	}
	return map[string]any{"type": "keyword", "ignore_above": 1024, "fields": fields}
}

// create makes a new concrete index "<alias>-<unix nanoseconds>" with the mapping and returns
// its name.
func (x *Index) create(ctx context.Context) (string, error) {
	name := fmt.Sprintf("%s-%d", x.alias, time.Now().UnixNano())
	status, err := x.do(ctx, http.MethodPut, "/"+name, mapping, nil)
	if err = statusErr(status, err); err != nil {
		return "", fmt.Errorf("opensearch: create index %s: %w", name, err)
	}
	return name, nil
}

// Apply sends ops as one _bulk request to the alias. Its index actions require the alias
// (require_alias): when the alias is gone they fail with index_not_found_exception (status 404)
// instead of auto-creating a concrete index named as the alias, with a dynamic mapping, that
// would take the writes and stop every later Open from making the alias again.
func (x *Index) Apply(ctx context.Context, ops []search.Op) ([]error, error) {
	return x.apply(ctx, x.alias, ops)
}

func (x *Index) apply(ctx context.Context, index string, ops []search.Op) ([]error, error) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	for _, op := range ops {
		action := "index"
		if op.Doc == nil {
			action = "delete"
		}
		meta := map[string]any{"_index": index, "_id": op.ID}
		if action == "index" && index == x.alias {
			meta["require_alias"] = true
		}
		if err := enc.Encode(map[string]any{action: meta}); err != nil {
			return nil, err
		}
		if op.Doc != nil {
			if err := enc.Encode(op.Doc); err != nil {
				return nil, fmt.Errorf("encode document %s: %w", op.ID, err)
			}
		}
	}
	resp, err := x.client.Bulk(ctx, opensearchapi.BulkReq{Body: &body})
	if err != nil {
		return nil, fmt.Errorf("opensearch: bulk: %w", err)
	}
	if len(resp.Items) != len(ops) {
		return nil, fmt.Errorf("opensearch: bulk: %d items answered for %d operations", len(resp.Items), len(ops))
	}
	errs := make([]error, len(ops))
	for i, item := range resp.Items {
		for action, r := range item {
			if r.Error == nil || (action == "delete" && r.Status == http.StatusNotFound) {
				continue
			}
			// index_not_found through the alias is the moment of a Rebuild's swap (another
			// process's search.Migrate: the alias moved to the new index and the old one was
			// deleted under this request): sent again, the write goes through the alias to the
			// new index. (An alias gone for good fails again on every try, then gives up.)
			swapped := index == x.alias && r.Status == http.StatusNotFound && r.Error.Type == "index_not_found_exception"
			errs[i] = &search.OpError{ID: ops[i].ID, Status: r.Status,
				Reason:    strings.TrimSpace(r.Error.Type + ": " + r.Error.Reason + " " + r.Error.Cause.Reason),
				Retryable: r.Status == http.StatusTooManyRequests || r.Status >= 500 || swapped}
		}
	}
	return errs, nil
}

// textFields are the full-text fields with their boosts (title and keywords boosted).
var textFields = []string{"title^3", "description", "keyword.text^2", "theme.text", "publisher",
	"organization.text", "distribution_title"}

// filterFields are the folded sub-fields the filters of search.Query match (case and accents
// ignored); source_id is matched exactly.
var filterFields = map[string]string{search.FieldOrganization: "organization.folded",
	search.FieldKeyword: "keyword.folded", search.FieldFormat: "distribution_format.folded",
	search.FieldPublisher: "publisher.folded", search.FieldTheme: "theme.folded", search.FieldSourceID: "source_id"}

// facetFields are the published-value fields of the facets.
var facetFields = map[string]string{search.FieldOrganization: "organization", search.FieldKeyword: "keyword",
	search.FieldFormat: "distribution_format", search.FieldPublisher: "publisher.raw", search.FieldTheme: "theme"}

// Search runs q as a bool query: the text (textQuery), term filters on the folded sub-fields
// (source_id exact; excluded ones in must_not), search.BBox.Intersects as range queries on the
// extent, and terms aggregations of the published values for the facets. Hits come in
// search.Query's order (sortOf).
func (x *Index) Search(ctx context.Context, q search.Query) (*search.Result, error) {
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	must := []any{map[string]any{"match_all": map[string]any{}}}
	if strings.TrimSpace(q.Text) != "" {
		must = []any{textQuery(q.Text)}
	}
	filter, mustNot := []any{}, []any{}
	for _, f := range q.Filters {
		field := filterFields[f.Field]
		if !x.folded.Load() && f.Field != search.FieldSourceID {
			field = facetFields[f.Field] // an index from before the folded sub-fields
		}
		c := map[string]any{"term": map[string]any{field: f.Value}} // the normalizer folds the value too
		if f.Exclude {
			mustNot = append(mustNot, c)
		} else {
			filter = append(filter, c)
		}
	}
	if q.BBox != nil {
		filter = append(filter, bboxQuery(*q.BBox))
	}
	aggs := map[string]any{}
	for _, name := range search.FacetFields {
		aggs[name] = map[string]any{"terms": map[string]any{"field": facetFields[name], "size": q.FacetSize}}
	}
	body := map[string]any{
		"from": q.From(), "size": q.PerPage, "track_total_hits": true,
		"_source": []string{"title", "slug", "identifier", "organization", "source_id", "description",
			"distribution_format", "modified", "publisher"},
		"query": map[string]any{"bool": map[string]any{"must": must, "filter": filter, "must_not": mustNot}},
		"sort":  sortOf(q),
		"aggs":  aggs,
	}
	var out struct {
		Hits struct {
			Total struct {
				Value int `json:"value"`
			} `json:"total"`
			Hits []struct {
				ID     string   `json:"_id"`
				Score  *float64 `json:"_score"`
				Source struct {
					search.Hit
					Description string   `json:"description"`
					Formats     []string `json:"distribution_format"`
				} `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
		Aggregations map[string]struct {
			Buckets []struct {
				Key   string `json:"key"`
				Count int    `json:"doc_count"`
			} `json:"buckets"`
		} `json:"aggregations"`
	}
	status, err := x.do(ctx, http.MethodPost, "/"+x.alias+"/_search", body, &out)
	if err = statusErr(status, err); err != nil {
		return nil, fmt.Errorf("opensearch: search: %w", err)
	}
	res := &search.Result{Total: out.Hits.Total.Value, Hits: []search.Hit{}, Facets: map[string][]search.Facet{}}
	for _, h := range out.Hits.Hits {
		hit := h.Source.Hit
		hit.ID, hit.Description, hit.Formats = h.ID, search.Snippet(h.Source.Description), h.Source.Formats
		if h.Score != nil {
			hit.Score = *h.Score
		}
		res.Hits = append(res.Hits, hit)
	}
	for _, name := range search.FacetFields {
		res.Facets[name] = []search.Facet{}
		for _, b := range out.Aggregations[name].Buckets {
			res.Facets[name] = append(res.Facets[name], search.Facet{Value: b.Key, Count: b.Count})
		}
	}
	return res, nil
}

// textQuery is the text's query: the whole text as the identifier, or every word and phrase of
// it (search.ParseText), each matching in one of textFields (a word's tokens all in one field;
// a word may be the identifier). A word or phrase that analyses to nothing (a stop word)
// matches everything (zero_terms_query "all"), so it does not count.
func textQuery(text string) map[string]any {
	all := []any{}
	for _, t := range search.ParseText(text) {
		typ := "best_fields"
		if t.Phrase {
			typ = "phrase"
		}
		alts := []any{map[string]any{"multi_match": map[string]any{"query": t.Text, "type": typ, "operator": "and",
			"fields": textFields, "zero_terms_query": "all"}}}
		if !t.Phrase {
			alts = append(alts, map[string]any{"term": map[string]any{"identifier": t.Text}})
		}
		all = append(all, map[string]any{"bool": map[string]any{"should": alts, "minimum_should_match": 1}})
	}
	return map[string]any{"bool": map[string]any{"minimum_should_match": 1, "should": []any{
		map[string]any{"term": map[string]any{"identifier": strings.TrimSpace(text)}},
		map[string]any{"bool": map[string]any{"must": all}},
	}}}
}

// bboxQuery is search.BBox.Intersects as range queries on the extent's numbers.
func bboxQuery(b search.BBox) map[string]any {
	rng := func(field, op string, v float64) map[string]any {
		return map[string]any{"range": map[string]any{"extent." + field: map[string]any{op: v}}}
	}
	var lon []any
	for _, r := range b.LonRanges() {
		for _, shift := range []float64{0, 360} {
			lon = append(lon, map[string]any{"bool": map[string]any{"filter": []any{
				rng("west", "lte", r[1]+shift), rng("east", "gte", r[0]+shift)}}})
		}
	}
	return map[string]any{"bool": map[string]any{"filter": []any{rng("south", "lte", b.North), rng("north", "gte", b.South),
		map[string]any{"bool": map[string]any{"should": lon, "minimum_should_match": 1}}}}}
}

// sortOf is q's order: by score with text (search.SortRelevance), newest modified first
// (search.SortModified; none last), else the title's sort key (title_sort, then id). An index
// made before title_sort sorts as if no title had a key.
func sortOf(q search.Query) []any {
	id := map[string]any{"id": "asc"}
	switch {
	case q.Sort == search.SortModified:
		return []any{map[string]any{"modified": map[string]any{"order": "desc", "missing": "_last", "unmapped_type": "date"}}, id}
	case q.Sort == search.SortRelevance && strings.TrimSpace(q.Text) != "":
		return []any{"_score", id}
	}
	return []any{map[string]any{"title_sort": map[string]any{"order": "asc", "unmapped_type": "keyword"}}, id}
}

// Scan pages through the documents in id order with search_after, 1,000 at a time.
func (x *Index) Scan(ctx context.Context, sourceID string, fn func(search.Entry) error) error {
	var after []any
	for {
		body := map[string]any{"size": 1000, "sort": []any{map[string]any{"id": "asc"}},
			"_source": []string{"source_id", "record_id"}, "query": sourceQuery(sourceID)}
		if after != nil {
			body["search_after"] = after
		}
		var out struct {
			Hits struct {
				Hits []struct {
					ID     string       `json:"_id"`
					Source search.Entry `json:"_source"`
					Sort   []any        `json:"sort"`
				} `json:"hits"`
			} `json:"hits"`
		}
		status, err := x.do(ctx, http.MethodPost, "/"+x.alias+"/_search", body, &out)
		if err = statusErr(status, err); err != nil {
			return fmt.Errorf("opensearch: scan: %w", err)
		}
		for _, h := range out.Hits.Hits {
			e := h.Source
			e.ID = h.ID
			if err := fn(e); err != nil {
				return err
			}
			after = h.Sort
		}
		if len(out.Hits.Hits) < 1000 {
			return nil
		}
	}
}

func sourceQuery(sourceID string) map[string]any {
	if sourceID == "" {
		return map[string]any{"match_all": map[string]any{}}
	}
	return map[string]any{"term": map[string]any{"source_id": sourceID}}
}

// DeleteSource deletes the source's documents with search.DeleteByScan (_delete_by_query is in
// the reindex module, which not every node has).
func (x *Index) DeleteSource(ctx context.Context, sourceID string) error {
	return search.DeleteByScan(ctx, x, sourceID)
}

// Rebuild creates a new concrete index, fills it in bulk requests (search.Bulk), refreshes it,
// then points the alias at it alone, as its write index, deleting the indices the alias was on
// (swap). Rebuilds running at once, in this process or others, end with the alias on the index
// of the last to swap.
func (x *Index) Rebuild(ctx context.Context, fill func(put func(search.Document) error) error) error {
	name, err := x.create(ctx)
	if err != nil {
		return err
	}
	bulk := search.NewBulk(func(ctx context.Context, ops []search.Op) ([]error, error) { return x.apply(ctx, name, ops) })
	err = fill(func(d search.Document) error { return bulk.Put(ctx, d) })
	if err == nil {
		err = bulk.Flush(ctx)
	}
	if err == nil {
		status, e := x.do(ctx, http.MethodPost, "/"+name+"/_refresh", nil, nil)
		err = statusErr(status, e)
	}
	if err == nil {
		err = x.swap(ctx, name)
	}
	if err != nil {
		_, _ = x.do(context.WithoutCancel(ctx), http.MethodDelete, "/"+name, nil, nil)
		return fmt.Errorf("opensearch: rebuild: %w", err)
	}
	x.folded.Store(true)
	x.outdated.Store(false)
	return nil
}

// swapTries bounds swap's attempts; each failed one means another Rebuild swapped meanwhile.
const swapTries = 5

// swap points the alias at name alone, as its write index, and deletes the indices it is on,
// in one _aliases request (atomic: searches see the old index or the new one). When the
// request fails because the alias moved meanwhile (another Rebuild swapped first and deleted
// an index this request removes), it reads the alias again and retries.
func (x *Index) swap(ctx context.Context, name string) error {
	var err error
	for range swapTries {
		var members map[string]*bool
		if members, err = x.members(ctx); err != nil {
			return err
		}
		actions := []any{map[string]any{"add": map[string]any{"index": name, "alias": x.alias, "is_write_index": true}}}
		for idx := range members {
			if idx != name {
				actions = append(actions, map[string]any{"remove_index": map[string]any{"index": idx}})
			}
		}
		status, e := x.do(ctx, http.MethodPost, "/_aliases", map[string]any{"actions": actions}, nil)
		if err = statusErr(status, e); err == nil || status == 0 || status >= 500 {
			return err // done, or the node's own trouble (the client has retried it)
		}
	}
	return fmt.Errorf("swap the alias %s to %s: %w", x.alias, name, err)
}

// Refresh refreshes the alias's index.
func (x *Index) Refresh(ctx context.Context) error {
	status, err := x.do(ctx, http.MethodPost, "/"+x.alias+"/_refresh", nil, nil)
	if err = statusErr(status, err); err != nil {
		return fmt.Errorf("opensearch: refresh: %w", err)
	}
	return nil
}

// Drop deletes the alias's indices (tests use it to clean up).
func (x *Index) Drop(ctx context.Context) error {
	var old map[string]any
	if status, err := x.do(ctx, http.MethodGet, "/_alias/"+x.alias, nil, &old); statusErr(status, err) != nil {
		return statusErr(status, err)
	}
	for idx := range old {
		if status, err := x.do(ctx, http.MethodDelete, "/"+idx, nil, nil); statusErr(status, err) != nil {
			return statusErr(status, err)
		}
	}
	return nil
}

// SetWriteBlock sets or lifts index.blocks.write on the alias's index: while set, every write
// fails with a cluster_block_exception (status 403). Operators use it to freeze the index;
// tests use it to make writes fail for real.
func (x *Index) SetWriteBlock(ctx context.Context, on bool) error {
	status, err := x.do(ctx, http.MethodPut, "/"+x.alias+"/_settings",
		map[string]any{"index": map[string]any{"blocks": map[string]any{"write": on}}}, nil)
	return statusErr(status, err)
}

// Close is a no-op: the client holds no resources beyond idle HTTP connections.
func (x *Index) Close() error { return nil }

// do performs one request through the client's transport (retries, auth) with a JSON body,
// decoding a 2xx answer into out. It returns the status; a status ≥ 300 comes with the
// answer's error text as err.
func (x *Index) do(ctx context.Context, method, path string, body, out any) (int, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, path, r)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := x.client.Client.Stream(req) // the caller owns the body, read below
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("status %d: %s", resp.StatusCode, truncate(string(data), 500))
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode answer: %w", err)
		}
	}
	return resp.StatusCode, nil
}

// statusErr turns a not-found status into an error too (do leaves HEAD 404 without a body).
func statusErr(status int, err error) error {
	if err == nil && status >= 300 {
		return fmt.Errorf("status %d", status)
	}
	return err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
