package dcatap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/rdf"
)

// Kind is what a Resource of a split graph is.
type Kind string

// Kinds of Resource.
const (
	// KindCatalog is a dcat:Catalog: not a record; its graph is for change detection
	// (changedCatalogs) and removal.
	KindCatalog Kind = "catalog"
	// KindDataset is a dcat:Dataset record.
	KindDataset Kind = "dataset"
	// KindSeries is a dcat:DatasetSeries record.
	KindSeries Kind = "series"
)

// Resource is one catalog or one record (dataset or series) split out of a source graph, or a
// problem: a dataset that cannot be a record.
type Resource struct {
	Kind Kind
	// IRI is the resource's IRI: a record's identifier. "" for a blank-node problem.
	IRI string
	// Triples is the resource's graph, skolemized (Skolemize with owner IRI), sorted by
	// N-Triples line, distinct; Canonical(Triples) gives the record Body and source_hash.
	// Nil for a problem resource.
	Triples []rdf.Triple
	// Catalogs are the IRIs of the catalogs that list a dataset or series (through dcat:dataset,
	// or through a series that lists it as a member), sorted; empty for a dataset in no catalog
	// and for a catalog.
	Catalogs []string
	// Datasets are, for a catalog, the IRIs its dcat:dataset links name, sorted (the list FDK's
	// removal detection compares); nil otherwise.
	Datasets []string
	// Problem, when not "", says why this resource is not a record: a dataset or series that is a
	// blank node (KindDataset/KindSeries, IRI "": EXTRACT makes it an error row; FDK drops it
	// silently), a dataset or series whose graph passes 100,000 triples (IRI set: an error row
	// for that identifier; such a closure has swallowed a vocabulary, and holding it would break
	// the memory bound), or a catalog that is a blank node (KindCatalog: a job warning at most,
	// it is no record).
	Problem string
	// nquads is Canonical(Triples)'s nquads, made from the lines Skolemize sorted by (nil when
	// Canonical refuses a triple, or not made).
	nquads []byte
	// Label is a problem resource's dct:title (the least in code-point order when there are
	// several; "" when there is none), to name it in the error row; cut to 256 bytes and "…".
	Label string
}

// NQuads returns the canonical N-Quads of r's graph, the nquads of Canonical(r.Triples) (a
// record's Body, and what SourceHash hashes), and Canonical's error when it refuses a triple.
// Split made them with the graph, so this costs nothing for a resource of Split; the result is
// shared, not to be modified.
func (r *Resource) NQuads() ([]byte, error) {
	if r.nquads != nil {
		return r.nquads, nil
	}
	nquads, _, err := Canonical(r.Triples)
	if err == nil {
		r.nquads = nquads
	}
	return nquads, err
}

// Split reads a source graph and calls fn once for each catalog, record and problem, in this
// order: catalogs sorted by IRI, then datasets and series sorted by IRI (one whose graph passes
// 100,000 triples comes as a problem in its place), then the blank-node problems sorted by label
// (ties by content). fn's error stops Split and is returned as it is; an error of g is returned
// wrapped. It walks the graph by term ids: the graph's own when it numbers its terms
// (rdf.IDGraph, NewGraph's graph on disk), whose table of terms by value it frees
// (rdf.TermIDs.DropTermIndex) once it has found the catalogs and records, so that while fn
// runs it holds no string a record and the graph no table by value (the blank-node problems,
// last, are read by term and make it again); otherwise through g.Match, numbering the terms it
// meets. Split holds the sets of catalog and dataset ids and one resource's graph at a time,
// never the whole graph, and never calls Match from inside a Match callback (so a disk-backed
// Graph's cursors need not nest).
//
// The rules, after fdk-dataset-harvester's HarvestHelpers (peer-harvesters.md §1.6):
//   - Catalogs are the subjects typed dcat:Catalog. A blank-node catalog gives a KindCatalog
//     problem (FDK drops it with a log line); its datasets are split as datasets in no catalog.
//   - Records are the subjects typed dcat:Dataset or dcat:DatasetSeries (the objects of a
//     catalog's dcat:dataset that are so typed are among them; a typed dataset that no catalog
//     lists is still a record, where FDK's classic harvester drops it), and every subject of a
//     dcat:inSeries pointing at a series, typed or not (FDK makes each one a dataset of the
//     series' catalog; so do we: its Catalogs include its series' catalogs). An untyped object of
//     dcat:dataset is no record (it stays as a link in the catalog's graph). A record that is a
//     blank node is a problem (Kind, Label, Catalogs set; no IRI, no Triples).
//   - A record's graph is its own triples plus the closure over the resources its triples point
//     at: every triple of each IRI or blank object, recursively, each resource once (FDK's "an IRI
//     already typed in the graph being built" test, made cycle-safe for blank nodes and untyped
//     IRIs too), stopping at datasets, series and catalogs (only the link triple stays). Unlike
//     FDK, the closure stops at catalogs (a dataset's dct:isPartOf would otherwise pull every
//     dcat:dataset link of its catalog into every record) and does not follow rdf:type objects
//     (a source that ships its ontology would otherwise put the class definitions in every record).
//   - A series' graph adds the link triples "<member> dcat:inSeries <series>" of its members
//     (FDK's series pulls in the resources pointing at it): only the links; each member is its
//     own record with its own closure, so a change to a member changes the member, not the series.
//   - A catalog's graph is its triples (a dcat:dataset link only when it names an IRI, as FDK's),
//     plus the closure over its other objects, stopping at datasets, series and catalogs. Unlike
//     FDK's catalog graph it does not include its datasets' graphs: a catalog counts as changed
//     (changedCatalogs) when its own triples change (title, publisher, the list of datasets), not
//     when one of its datasets does (that dataset is in changedResources itself).
func Split(g rdf.Graph, fn func(*Resource) error) error {
	s := splitter{g: g, info: map[uint32]termInfo{}, listIDs: map[string]uint32{}, lists: [][]string{nil}}
	if ig, ok := g.(rdf.IDGraph); ok {
		s.ids, _ = ig.TermIDs()
	}
	if s.ids == nil {
		s.ids = newTermNumbers(g)
	}
	if err := s.scan(); err != nil {
		return fmt.Errorf("split graph: %w", err)
	}
	// From here on the graph is walked by ids alone (the blank-node problems aside), so its
	// table of terms by value is not needed while the records are listed.
	s.ids.DropTermIndex()
	// Catalogs.
	for _, c := range s.catalogs {
		r, err := s.catalog(c)
		if err != nil {
			return fmt.Errorf("split graph: catalog %s: %w", s.iri(c), err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	// Records.
	for _, d := range s.records {
		r, err := s.record(d)
		if err != nil {
			return fmt.Errorf("split graph: dataset %s: %w", s.iri(d), err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	// Problems.
	problems, err := s.problems()
	if err != nil {
		return fmt.Errorf("split graph: %w", err)
	}
	for _, r := range problems {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

type splitter struct {
	g rdf.Graph
	// ids numbers g's terms: g's own (rdf.IDGraph), else termNumbers.
	ids rdf.TermIDs
	// info holds every subject typed Catalog, Dataset or Series, and every series member, IRI or
	// blank, by term id: the closure's stop set. (Keyed by the term's kind and value it took
	// about 130 bytes a dataset with the records' IRIs, 26 MiB of a 209,715-dataset catalog's
	// listing; by id, with the records as ids, about 25.)
	info map[uint32]termInfo
	// lists are the distinct lists of catalogs of info's records (lists[0] is none), listIDs
	// their index by the list's IRIs, each prefixed by its length; after scan each list is
	// sorted, distinct.
	lists    [][]string
	listIDs  map[string]uint32
	key      []byte   // a scratch list key
	catalogs []uint32 // IRI catalogs, sorted by IRI
	records  []uint32 // IRI datasets and series, sorted by IRI
	blanks   []uint32 // blank datasets, series and catalogs
	// The vocabulary's term ids, rdf.NoID when the graph has no such term.
	rdfType, dcatDataset, dcatInSeries, dctTitle uint32
}

// termInfo is what the splitter knows of a subject: its kind as a record (a dataset or series
// typed so, or a series member), whether it is typed dcat:Catalog, and for a record the IRI
// catalogs listing it (an index in splitter.lists).
type termInfo struct {
	record   recordKind
	catalog  bool
	catalogs uint32
}

// term returns term id (an id of s.ids).
func (s *splitter) term(id uint32) (rdf.Term, error) { return s.ids.TermOf(id) }

// iri returns term id's value for an error message ("" when it cannot be read).
func (s *splitter) iri(id uint32) string {
	t, _ := s.ids.TermOf(id)
	return t.Value
}

// triple returns the terms of it.
func (s *splitter) triple(it rdf.IDTriple) (rdf.Triple, error) {
	var t rdf.Triple
	var err error
	if t.S, err = s.ids.TermOf(it.S); err != nil {
		return t, err
	}
	if t.P, err = s.ids.TermOf(it.P); err != nil {
		return t, err
	}
	t.O, err = s.ids.TermOf(it.O)
	return t, err
}

// id returns t's id, rdf.NoID when the graph has no such term.
func (s *splitter) id(t rdf.Term) (uint32, error) {
	id, ok, err := s.ids.TermID(t)
	if err != nil || !ok {
		return rdf.NoID, err
	}
	return id, nil
}

// matchIDs walks the triples matching (sub, p, o) by ids, rdf.NoID a wildcard; a pattern naming
// a term the graph does not have (absent) matches nothing.
func (s *splitter) matchIDs(sub, p, o uint32, fn func(rdf.IDTriple) error) error {
	return s.ids.MatchIDs(sub, p, o, fn)
}

// catalogsOf returns the catalogs of info's list id (shared: not to be modified).
func (s *splitter) catalogsOf(id uint32) []string { return s.lists[id] }

// withCatalogs returns the id of list id with the catalogs more appended (interned).
func (s *splitter) withCatalogs(id uint32, more ...string) uint32 {
	if len(more) == 0 {
		return id
	}
	list := append(slices.Clip(s.lists[id]), more...)
	s.key = s.key[:0]
	for _, c := range list {
		s.key = append(binary.AppendUvarint(s.key, uint64(len(c))), c...)
	}
	if n, ok := s.listIDs[string(s.key)]; ok {
		return n
	}
	n := uint32(len(s.lists))
	s.lists = append(s.lists, list)
	s.listIDs[string(s.key)] = n
	return n
}

// recordKind is a record's Kind in a byte.
type recordKind uint8

const (
	notRecord recordKind = iota
	datasetRecord
	seriesRecord
)

func (k recordKind) kind() Kind {
	switch k {
	case datasetRecord:
		return KindDataset
	case seriesRecord:
		return KindSeries
	}
	return ""
}

// typed is the Kind of a subject of info: a term typed both catalog and dataset is a catalog.
func (in termInfo) typed() Kind {
	if in.catalog {
		return KindCatalog
	}
	return in.record.kind()
}

var (
	rdfType      = rdf.IRI(rdf.RDFType)
	dcatDataset  = rdf.IRI(DCATDatasetProp)
	dcatInSeries = rdf.IRI(DCATInSeries)
	dctTitle     = rdf.IRI(DCTTitle)
	typeCatalog  = rdf.IRI(DCATCatalog)
	typeDataset  = rdf.IRI(DCATDataset)
	typeSeries   = rdf.IRI(DCATDatasetSeries)
)

// maxRecordTriples caps a record's graph (a variable so that tests can lower it).
var maxRecordTriples = 100_000

var errTooLarge = errors.New("record graph too large")

// scan finds catalogs, records and the catalogs each record is in.
func (s *splitter) scan() error {
	for _, v := range []struct {
		id *uint32
		t  rdf.Term
	}{{&s.rdfType, rdfType}, {&s.dcatDataset, dcatDataset}, {&s.dcatInSeries, dcatInSeries}, {&s.dctTitle, dctTitle}} {
		var err error
		if *v.id, err = s.id(v.t); err != nil {
			return err
		}
	}
	if err := s.scanRecords(); err != nil {
		return err
	}
	catalogSet, err := s.scanCatalogs()
	if err != nil {
		return err
	}
	// A member is in its series' catalogs.
	err = s.eachSeriesMember(func(series, member uint32) {
		in := s.info[member]
		in.catalogs = s.withCatalogs(in.catalogs, s.catalogsOf(s.info[series].catalogs)...)
		s.info[member] = in
	})
	if err != nil {
		return err
	}
	for i, list := range s.lists {
		if len(list) > 1 {
			list = slices.Clone(list)
			slices.Sort(list)
			s.lists[i] = slices.Compact(list)
		}
	}
	s.listIDs = nil
	type named struct {
		iri string
		id  uint32
	}
	var records []named
	for id, in := range s.info {
		if in.record == notRecord {
			continue
		}
		r, err := s.term(id)
		if err != nil {
			return err
		}
		if r.IsBlank() {
			if !catalogSet[id] {
				s.blanks = append(s.blanks, id)
			}
		} else if r.IsIRI() {
			records = append(records, named{r.Value, id})
		}
	}
	slices.SortFunc(records, func(a, b named) int { return strings.Compare(a.iri, b.iri) })
	s.records = make([]uint32, len(records))
	for i, r := range records {
		s.records[i] = r.id
	}
	records = records[:0]
	for _, id := range s.catalogs {
		c, err := s.term(id)
		if err != nil {
			return err
		}
		records = append(records, named{c.Value, id})
	}
	slices.SortFunc(records, func(a, b named) int { return strings.Compare(a.iri, b.iri) })
	for i, c := range records {
		s.catalogs[i] = c.id
	}
	return nil
}

// scanRecords finds the records: the datasets, the series (a series typed dataset too is a
// series) and the series' members.
func (s *splitter) scanRecords() error {
	add := func(class rdf.Term, k recordKind) error {
		c, err := s.id(class)
		if err != nil || c == rdf.NoID || s.rdfType == rdf.NoID {
			return err
		}
		return s.matchIDs(rdf.NoID, s.rdfType, c, func(t rdf.IDTriple) error {
			if in := s.info[t.S]; in.record == notRecord || k == seriesRecord {
				in.record = k // a series typed dataset too is a series
				s.info[t.S] = in
			}
			return nil
		})
	}
	if err := add(typeDataset, datasetRecord); err != nil {
		return err
	}
	if err := add(typeSeries, seriesRecord); err != nil {
		return err
	}
	// Series members are records.
	var members []uint32
	if err := s.eachSeriesMember(func(_, member uint32) { members = append(members, member) }); err != nil {
		return err
	}
	for _, m := range members {
		if in := s.info[m]; in.record == notRecord {
			in.record = datasetRecord
			s.info[m] = in
		}
	}
	return nil
}

// eachSeriesMember calls fn with each series found so far and each subject in it
// (dcat:inSeries).
func (s *splitter) eachSeriesMember(fn func(series, member uint32)) error {
	if s.dcatInSeries == rdf.NoID {
		return nil
	}
	var series []uint32
	for id, in := range s.info {
		if in.record == seriesRecord {
			series = append(series, id)
		}
	}
	for _, r := range series {
		err := s.matchIDs(rdf.NoID, s.dcatInSeries, r, func(t rdf.IDTriple) error {
			fn(r, t.S)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// scanCatalogs finds the catalogs (IRI catalogs in s.catalogs, blank ones in s.blanks) and
// the IRI catalogs each record is listed in (dcat:dataset); it returns every catalog.
func (s *splitter) scanCatalogs() (map[uint32]bool, error) {
	catalogSet := map[uint32]bool{}
	class, err := s.id(typeCatalog)
	if err != nil || class == rdf.NoID || s.rdfType == rdf.NoID {
		return catalogSet, err
	}
	err = s.matchIDs(rdf.NoID, s.rdfType, class, func(t rdf.IDTriple) error {
		catalogSet[t.S] = true
		in := s.info[t.S]
		in.catalog = true
		s.info[t.S] = in
		return nil
	})
	if err != nil {
		return nil, err
	}
	for id := range catalogSet {
		c, err := s.term(id)
		if err != nil {
			return nil, err
		}
		if c.IsBlank() {
			s.blanks = append(s.blanks, id)
			continue
		}
		s.catalogs = append(s.catalogs, id)
		if s.dcatDataset == rdf.NoID {
			continue
		}
		err = s.matchIDs(id, s.dcatDataset, rdf.NoID, func(t rdf.IDTriple) error {
			if in := s.info[t.O]; in.record != notRecord {
				in.catalogs = s.withCatalogs(in.catalogs, c.Value)
				s.info[t.O] = in
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return catalogSet, nil
}

// closure returns root's triples (those keep says to keep) and the closure over their objects,
// stopping at the stop set, walked by term ids.
// The closure of a record that passes limit triples is cut off with errTooLarge.
func (s *splitter) closure(root uint32, keep func(rdf.Triple) bool, limit int) ([]rdf.Triple, error) {
	var ts []rdf.Triple
	visited := map[uint32]bool{root: true}
	queue := []uint32{root}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		err := s.matchIDs(v, rdf.NoID, rdf.NoID, func(it rdf.IDTriple) error {
			t, err := s.triple(it)
			if err != nil {
				return err
			}
			if v == root && keep != nil && !keep(t) {
				return nil
			}
			ts = append(ts, t)
			if limit > 0 && len(ts) > limit {
				return errTooLarge
			}
			if it.P == s.rdfType || t.O.IsLiteral() || visited[it.O] {
				return nil
			}
			if v == root && it.P == s.dcatDataset {
				return nil // a catalog's datasets are links only
			}
			if _, stop := s.info[it.O]; stop {
				return nil
			}
			visited[it.O] = true
			queue = append(queue, it.O)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return ts, nil
}

func (s *splitter) catalog(id uint32) (*Resource, error) {
	c, err := s.term(id)
	if err != nil {
		return nil, err
	}
	ts, err := s.closure(id, func(t rdf.Triple) bool {
		return t.P != dcatDataset || t.O.IsIRI()
	}, 0)
	if err != nil {
		return nil, err
	}
	r := &Resource{Kind: KindCatalog, IRI: c.Value, Datasets: []string{}}
	for _, t := range ts {
		if t.S == c && t.P == dcatDataset {
			r.Datasets = append(r.Datasets, t.O.Value)
		}
	}
	slices.Sort(r.Datasets)
	r.Datasets = slices.Compact(r.Datasets)
	r.Triples, r.nquads = skolemize(c.Value, ts)
	return r, nil
}

func (s *splitter) record(id uint32) (*Resource, error) {
	d, err := s.term(id)
	if err != nil {
		return nil, err
	}
	in := s.info[id]
	k := in.record.kind()
	ts, err := s.closure(id, nil, maxRecordTriples)
	if errors.Is(err, errTooLarge) {
		r := &Resource{Kind: k, IRI: d.Value, Catalogs: slices.Clone(s.catalogsOf(in.catalogs))}
		r.Label, err = s.title(id)
		if err != nil {
			return nil, err
		}
		r.Problem = fmt.Sprintf("the record's graph (its triples and what they point at) has more than %d triples, "+
			"the record triple cap: not harvested, to keep memory bounded", maxRecordTriples)
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	if k == KindSeries && s.dcatInSeries != rdf.NoID {
		err := s.matchIDs(rdf.NoID, s.dcatInSeries, id, func(it rdf.IDTriple) error {
			t, err := s.triple(it)
			ts = append(ts, t)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	r := &Resource{Kind: k, IRI: d.Value, Catalogs: slices.Clone(s.catalogsOf(in.catalogs))}
	r.Triples, r.nquads = skolemize(d.Value, ts)
	return r, nil
}
