package bleve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/char/asciifolding"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/analysis/tokenmap"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/harvester-dev/harvester/search"
)

// Index is a search.Index on bleve.
type Index struct {
	dir      string
	settings map[string]any // scorch's runtime config, for every generation, new or reopened
	mu       sync.RWMutex   // guards idx and gen across Rebuild's swap
	idx      blevesearch.Index
	gen      string
	// folded is set when the live generation has the folded fields (foldedAnalyzer); a
	// generation made before them filters on the published values until a reindex.
	folded bool
	// outdated is set when the live generation was made by another mapping (mappingVersion).
	outdated bool
	// cache holds Search's answers until the next write.
	cache results
	// facets holds the live segments' facet fields uninverted, for Search's facet counts.
	facets facetCache
}

var _ search.Index = (*Index)(nil)

// lockWait is how long Open waits for another process's lock on the index.
const lockWait = 5 * time.Second

// open indexes of this process by absolute directory: bleve locks a directory per process,
// so a second Open in the same process shares the first one's index.
var (
	openMu sync.Mutex
	opened = map[string]*shared{}
)

type shared struct {
	x    *Index
	refs int
}

// Handle is one user's hold on a shared Index; Close releases it, and the index closes with
// its last handle.
type Handle struct {
	*Index
	key  string
	once sync.Once
}

// Close releases the handle.
func (h *Handle) Close() error {
	var err error
	h.once.Do(func() {
		openMu.Lock()
		defer openMu.Unlock()
		s := opened[h.key]
		if s.refs--; s.refs == 0 {
			delete(opened, h.key)
			err = s.x.Close()
		}
	})
	return err
}

// Open opens (creating when missing) the index in directory dir, shared with every other
// Open of the same directory in this process. It fails with a clear error when another
// process holds the index for more than 5 s.
func Open(dir string) (*Handle, error) {
	key, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	openMu.Lock()
	defer openMu.Unlock()
	if s, ok := opened[key]; ok {
		s.refs++
		return &Handle{Index: s.x, key: key}, nil
	}
	x, err := open(key, settings())
	if err != nil {
		return nil, err
	}
	opened[key] = &shared{x: x, refs: 1}
	return &Handle{Index: x, key: key}, nil
}

// open opens the index in dir with scorch settings cfg (see settings).
func open(dir string, cfg map[string]any) (*Index, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("search index directory: %w", err)
	}
	x := &Index{dir: dir, settings: cfg}
	gen, err := os.ReadFile(filepath.Join(dir, "current"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		idx, name, err := x.create()
		if err != nil {
			return nil, err
		}
		if err := x.point(name); err != nil {
			idx.Close()
			return nil, err
		}
		x.idx, x.gen, x.folded = idx, name, true
		return x, nil
	case err != nil:
		return nil, fmt.Errorf("search index: %w", err)
	}
	x.gen = strings.TrimSpace(string(gen))
	runtime := maps.Clone(x.settings) // bleve adds its own keys to the map it is given
	if runtime == nil {
		runtime = map[string]any{}
	}
	runtime["bolt_timeout"] = lockWait.String()
	x.idx, err = blevesearch.OpenUsing(filepath.Join(dir, x.gen), runtime)
	if err != nil {
		return nil, fmt.Errorf("search index %s: %w (is another harvester process using it? "+
			"only one process may hold a bleve index; set OPENSEARCH_URL to share one index)", dir, err)
	}
	x.folded = hasFolding(x.idx)
	v, err := x.idx.GetInternal([]byte(internalVersion))
	if err != nil {
		x.idx.Close()
		return nil, fmt.Errorf("search index %s: %w", dir, err)
	}
	x.outdated = string(v) != mappingVersion()
	return x, nil
}

// internalVersion is the key of a generation's mapping version in bleve's internal storage.
const internalVersion = "harvester_mapping"

// mappingVersion identifies this version's mapping: the first 16 hex digits of the SHA-256 of
// indexMapping's JSON (as bleve keeps it in the index). create stamps it in each new generation
// (SetInternal), so Open can tell a generation made by another mapping (Outdated); a generation
// made before the stamp has none.
var mappingVersion = sync.OnceValue(func() string {
	im, err := indexMapping()
	if err != nil {
		return "" // create fails the same way
	}
	b, err := json.Marshal(im) // bleve's own encoding; map keys sorted
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
})

// Outdated reports whether the live generation was made by another mapping than this
// version's (its stamp differs, or it has none), as read by Open; after a Rebuild it is false.
func (x *Index) Outdated() bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.outdated
}

// hasFolding reports whether idx was created with the folded fields and analyzers.
func hasFolding(idx blevesearch.Index) bool {
	im, ok := idx.Mapping().(*mapping.IndexMappingImpl)
	if !ok || im.CustomAnalysis == nil {
		return false
	}
	_, ok = im.CustomAnalysis.Analyzers[foldedAnalyzer]
	return ok
}

// floorSegmentSize is the merge planner's FloorSegmentSize, in documents: segments smaller than
// it count as this size when the planner sizes its tiers. Scorch's default, 2,000, makes every
// segment under 2,000 documents one first-tier segment, so the merger rewrites the growing
// small segment with each new batch; SYNC's batches are about 16 documents (see the package
// doc for the measurements).
const floorSegmentSize = 50

// settings is the scorch runtime config every generation is created (kept in its
// index_meta.json) and opened with, so an index made before a change of settings takes the new
// ones when opened again. Options left out keep scorch's defaults.
func settings() map[string]any {
	return map[string]any{"scorchMergePlanOptions": map[string]any{"FloorSegmentSize": floorSegmentSize}}
}

// create makes a new, empty generation.
func (x *Index) create() (blevesearch.Index, string, error) {
	name := fmt.Sprintf("datasets-%d.bleve", time.Now().UnixNano())
	im, err := indexMapping()
	if err != nil {
		return nil, "", err
	}
	idx, err := blevesearch.NewUsing(filepath.Join(x.dir, name), im,
		blevesearch.Config.DefaultIndexType, blevesearch.Config.DefaultKVStore, maps.Clone(x.settings))
	if err == nil {
		err = idx.SetInternal([]byte(internalVersion), []byte(mappingVersion()))
		if err != nil {
			idx.Close()
			os.RemoveAll(filepath.Join(x.dir, name))
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("bleve: create %s: %w", name, err)
	}
	return idx, name, nil
}

// point makes generation name the live one, atomically (write and rename).
func (x *Index) point(name string) error {
	tmp := filepath.Join(x.dir, "current.tmp")
	if err := os.WriteFile(tmp, []byte(name+"\n"), 0o644); err != nil {
		return fmt.Errorf("bleve: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(x.dir, "current")); err != nil {
		return fmt.Errorf("bleve: %w", err)
	}
	return nil
}

// Analyzers of the mapping. textAnalyzer is bleve's "en" (unicode tokenizer, possessive, lower
// case, English stop words (Lucene's list, as OpenSearch's), Porter stemmer) with accents folded to ASCII first, as the
// OpenSearch index's english_folded; foldedAnalyzer makes one token of a whole value, lower
// case and folded to ASCII, like the OpenSearch index's "folded" normalizer, for the
// organization and keyword filters.
const (
	textAnalyzer   = "harvester_en"
	foldedAnalyzer = "harvester_folded"
)

// stopWordsMap and stopWordsFilter name the English stop words of the text analyzer:
// luceneEnglishStopWords, the list OpenSearch's "_english_" stop filter removes (Lucene's
// EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), not bleve's longer Snowball list: with every word of
// a search required, a word one engine drops and the other keeps ("being" in "Well-Being")
// gave the two engines different hits.
const (
	stopWordsMap    = "harvester_stop_en_words"
	stopWordsFilter = "harvester_stop_en"
)

var luceneEnglishStopWords = []any{"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in",
	"into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
	"they", "this", "to", "was", "will", "with"}

// indexMapping mirrors the OpenSearch mapping: english full text with accents folded and term
// vectors (positions, for phrases), exact keyword fields for facets (organization, keyword,
// theme, distribution_format, and publisher.raw for the publisher's name) each with a folded
// field for the filters, ignoring case and accents, dates, the spatial extent as four numbers,
// and the landing page, the temporal coverage and the DCAT record stored for display but not
// indexed. Doc values, which every batch and merge writes, are kept only where a query reads
// them: the sorts (id, modified, title_sort: the title's sort key, computed by search.SortKey
// and kept as is) and the facets. Fields are stored only when Search or Scan returns them, and
// the display fields.
func indexMapping() (mapping.IndexMapping, error) {
	text := func(name string, store bool) *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Name, f.Analyzer, f.Store, f.IncludeTermVectors, f.IncludeInAll, f.DocValues = name, textAnalyzer, store, true, false, false
		return f
	}
	folded := func(name string) *mapping.FieldMapping {
		f := text(name, false)
		f.Analyzer, f.IncludeTermVectors = foldedAnalyzer, false
		return f
	}
	kw := func(name string, store bool) *mapping.FieldMapping {
		f := mapping.NewKeywordFieldMapping()
		f.Name, f.Store, f.IncludeTermVectors, f.IncludeInAll = name, store, false, false
		f.DocValues = slices.Contains([]string{"id", "title_sort", "modified", "organization", "keyword", "theme",
			"distribution_format", "publisher.raw"}, name)
		return f
	}
	doc := mapping.NewDocumentStaticMapping()
	for _, name := range []string{"id", "slug", "identifier", "source_id", "record_id", "title_sort"} {
		doc.AddFieldMappingsAt(name, kw(name, name != "title_sort"))
	}
	for _, name := range []string{"keyword", "theme", "organization"} {
		doc.AddFieldMappingsAt(name, kw(name, name != "keyword" && name != "theme"), text(name+".text", false), folded(name+".folded"))
	}
	doc.AddFieldMappingsAt("distribution_format", kw("distribution_format", true), folded("distribution_format.folded"))
	doc.AddFieldMappingsAt("publisher", text("publisher", false), kw("publisher.raw", true), folded("publisher.folded"))
	doc.AddFieldMappingsAt("title", text("title", true))
	doc.AddFieldMappingsAt("description", text("description", true))
	doc.AddFieldMappingsAt("distribution_title", text("distribution_title", false))
	// modified is kept as its RFC 3339 text (search.Document writes it in UTC, to the second, in
	// years 1700–2199, so text order is time order): sorting by a keyword's doc values costs a
	// fraction of decoding a date field's terms for every hit.
	doc.AddFieldMappingsAt("modified", kw("modified", true))
	issued := mapping.NewDateTimeFieldMapping()
	issued.Name, issued.IncludeInAll, issued.Store, issued.DocValues = "issued", false, false, false
	doc.AddFieldMappingsAt("issued", issued)
	extent := mapping.NewDocumentStaticMapping() // search.Extent: range queries, no sorting
	for _, name := range []string{"west", "south", "east", "north"} {
		f := mapping.NewNumericFieldMapping()
		f.IncludeInAll, f.Store, f.DocValues = false, false, false
		extent.AddFieldMappingsAt(name, f)
	}
	doc.AddSubDocumentMapping("extent", extent)
	stored := mapping.NewTextFieldMapping()
	stored.Name, stored.Index, stored.Store, stored.IncludeInAll, stored.IncludeTermVectors = "dcat", false, true, false, false
	stored.DocValues = false
	doc.AddFieldMappingsAt("dcat", stored)
	for _, name := range []string{"landing_page", "temporal"} { // kept for display, not searched
		f := kw(name, true)
		f.Index = false
		doc.AddFieldMappingsAt(name, f)
	}

	im := mapping.NewIndexMapping()
	if err := im.AddCustomTokenMap(stopWordsMap, map[string]any{"type": tokenmap.Name, "tokens": luceneEnglishStopWords}); err != nil {
		return nil, fmt.Errorf("search index mapping: stop words: %w", err)
	}
	if err := im.AddCustomTokenFilter(stopWordsFilter, map[string]any{"type": stop.Name, "stop_token_map": stopWordsMap}); err != nil {
		return nil, fmt.Errorf("search index mapping: stop filter: %w", err)
	}
	for name, cfg := range map[string]map[string]any{
		textAnalyzer: {"type": custom.Name, "char_filters": []any{asciifolding.Name}, "tokenizer": unicode.Name,
			"token_filters": []any{en.PossessiveName, lowercase.Name, stopWordsFilter, porter.Name}},
		foldedAnalyzer: {"type": custom.Name, "char_filters": []any{asciifolding.Name}, "tokenizer": single.Name,
			"token_filters": []any{lowercase.Name}},
	} {
		if err := im.AddCustomAnalyzer(name, cfg); err != nil {
			return nil, fmt.Errorf("search index mapping: analyzer %s: %w", name, err)
		}
	}
	im.DefaultMapping = doc
	im.DefaultAnalyzer = textAnalyzer
	im.StoreDynamic, im.IndexDynamic, im.DocValuesDynamic = false, false, false
	return im, nil
}

// Properties returns the names of the document mapping's top-level properties, sorted: the
// search.Document fields (by JSON name) that a generation of this version maps.
func Properties() []string {
	im, err := indexMapping()
	if err != nil { // a bad analyzer config: no property counts as mapped
		return nil
	}
	return slices.Sorted(maps.Keys(im.(*mapping.IndexMappingImpl).DefaultMapping.Properties))
}

// fields returns the value bleve indexes for d: the Document's JSON fields, with the DCAT
// record as a string (stored only) and the bounding box as a GeoJSON-style map.
func fields(d *search.Document) (map[string]any, error) {
	dcat := d.DCAT
	d2 := *d
	d2.DCAT = nil
	b, err := json.Marshal(&d2)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if len(dcat) > 0 {
		m["dcat"] = string(dcat)
	}
	return m, nil
}

// Apply performs ops as one bleve batch.
func (x *Index) Apply(_ context.Context, ops []search.Op) ([]error, error) {
	x.cache.invalidate()
	defer x.cache.invalidate()
	x.mu.RLock()
	defer x.mu.RUnlock()
	errs := make([]error, len(ops))
	batch := x.idx.NewBatch()
	for i, op := range ops {
		if op.Doc == nil {
			batch.Delete(op.ID)
			continue
		}
		m, err := fields(op.Doc)
		if err == nil {
			err = batch.Index(op.ID, m)
		}
		if err != nil {
			errs[i] = &search.OpError{ID: op.ID, Reason: err.Error()}
		}
	}
	if err := x.idx.Batch(batch); err != nil {
		return nil, fmt.Errorf("bleve: %w", err)
	}
	return errs, nil
}

// Scan pages through the documents in id order, 1,000 at a time.
func (x *Index) Scan(_ context.Context, sourceID string, fn func(search.Entry) error) error {
	var root query.Query = blevesearch.NewMatchAllQuery()
	if sourceID != "" {
		t := blevesearch.NewTermQuery(sourceID)
		t.SetField("source_id")
		root = t
	}
	var after []string
	for {
		req := blevesearch.NewSearchRequestOptions(root, 1000, 0, false)
		req.Fields = []string{"source_id", "record_id"}
		req.SortBy([]string{"id"})
		if after != nil {
			req.SetSearchAfter(after)
		}
		x.mu.RLock()
		res, err := x.idx.Search(req)
		x.mu.RUnlock()
		if err != nil {
			return fmt.Errorf("bleve: scan: %w", err)
		}
		for _, h := range res.Hits {
			if err := fn(search.Entry{ID: h.ID, SourceID: field(h.Fields, "source_id"),
				RecordID: field(h.Fields, "record_id")}); err != nil {
				return err
			}
			after = []string{h.ID}
		}
		if len(res.Hits) < 1000 {
			return nil
		}
	}
}

// DeleteSource deletes the source's documents (search.DeleteByScan).
func (x *Index) DeleteSource(ctx context.Context, sourceID string) error {
	return search.DeleteByScan(ctx, x, sourceID)
}

// Rebuild fills a new generation, then swaps it in and removes the old one. Rebuilds running
// at once swap one after the other; the last to swap is the live generation.
func (x *Index) Rebuild(ctx context.Context, fill func(put func(search.Document) error) error) error {
	idx, name, err := x.create()
	if err != nil {
		return err
	}
	fresh := &Index{dir: x.dir, settings: x.settings, idx: idx, gen: name}
	var old blevesearch.Index
	var oldGen string
	bulk := search.NewBulk(fresh.Apply)
	err = fill(func(d search.Document) error { return bulk.Put(ctx, d) })
	if err == nil {
		err = bulk.Flush(ctx)
	}
	x.cache.invalidate()
	defer x.cache.invalidate()
	if err == nil {
		x.mu.Lock() // one swap at a time: "current" and the live generation change together
		if err = x.point(name); err == nil {
			old, oldGen = x.idx, x.gen
			x.idx, x.gen, x.folded, x.outdated = idx, name, true, false
		}
		x.mu.Unlock()
	}
	if err != nil {
		idx.Close()
		os.RemoveAll(filepath.Join(x.dir, name))
		return fmt.Errorf("bleve: rebuild: %w", err)
	}
	old.Close()
	return os.RemoveAll(filepath.Join(x.dir, oldGen))
}

// Refresh is a no-op: a bleve batch is searchable once Apply returns.
func (x *Index) Refresh(context.Context) error { return nil }

// Close closes the live generation.
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.idx.Close()
}
