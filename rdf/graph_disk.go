package rdf

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"os"
	"slices"
)

// NewGraph returns a Graph that holds up to maxMemTriples distinct triples as a MemGraph and,
// when one more arrives, moves them to a compact store on disk made for what a harvest does with
// a large graph (add everything, then read) and goes on there, so that a catalog of any size
// parses in little memory (DESIGN.md rule 4). maxMemTriples <= 0 moves at the first triple.
//
// The compact store interns each distinct term as a 32-bit id. Terms' bytes go to an arena of
// which the first termMemBytes (4 MiB) stay in memory and the rest goes to a temporary file
// under dir (os.TempDir() when dir is ""), read back with ReadAt; an open-addressing table finds
// a term's id: in memory, 10–15 bytes a term besides the resident arena (the one part that grows
// with the graph), of which a Match of every triple (the graph's fingerprint) and
// TermIDs.DropTermIndex free all but a quarter byte (the arena place of every 16th term)
// until the next lookup or new term, which makes them again from the arena. A triple is three ids, 12 bytes in a second temporary file, appended as it
// comes (65,536 wait in memory). The first Match or Len after adding sorts the file by (subject,
// predicate, object) and drops repeats (the graph is a set): the sort reads the whole file into
// memory for its time (12 bytes a triple) and writes it back, with an index in memory of every
// 128th triple's (subject, predicate). The first Match by object alone or by (predicate, object)
// writes a third file sorted by (object, predicate, subject) alike. Match by subject (and
// predicate) and by object (and predicate) read from the indexed block on (one ReadAt of 1.5 KB
// for a lookup); by predicate alone and a full scan read the whole file. Triples come in
// (subject, predicate, object) order of term ids, which number terms in the order they were first
// added, or (object, predicate, subject) order when matched by object. Match calls fn with nothing
// locked, so fn may call Match again (a closure walk), but must not Add (nor may two goroutines
// Match at once: a Match uses the store's buffers and term cache); adding after a Match is
// allowed and sorts again at the next Match. Its blank nodes are numbered 0 … n-1 in the order
// of their ids (a bit a term, 4 bytes every 64 terms): MatchBlankIDs (BlankIDMatcher) walks the
// triples with those numbers, so that GraphHash keeps no table of their labels; TermIDs
// (IDGraph) walks the triples by term ids (MatchIDs) with the id table dropped, so that
// dcatap.Split lists a catalog without it. The files' names are removed as soon as they are open
// (where the system refuses, as Windows does, Close removes them): the files are freed when the
// graph closes or the process ends, however it ends (kill -9 included), and none is left behind
// in dir.
//
// Measured (2026-12-07, BenchmarkRDFJSONLD250MB, docs/benchmarks.md): it replaced a SQLite file
// (an Add ~4.3 µs, a Match by subject 15–20 µs); the 313 MB JSON-LD catalog's EXTRACT took 300
// CPU-s with SQLite and 80 with the store in memory.
func NewGraph(dir string, maxMemTriples int) (Graph, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	return &spillGraph{dir: dir, max: maxMemTriples, mem: NewMemGraph()}, nil
}

// spillGraph is NewGraph's Graph.
type spillGraph struct {
	dir  string
	max  int
	mem  *MemGraph // nil once spilled
	disk *diskGraph
}

func (g *spillGraph) Add(t Triple) error {
	if g.disk != nil {
		return g.disk.add(t)
	}
	if g.mem.Len() >= g.max {
		if _, dup := g.mem.set[t]; dup {
			return nil
		}
		if err := g.spill(); err != nil {
			return err
		}
		return g.disk.add(t)
	}
	return g.mem.Add(t)
}

func (g *spillGraph) spill() error {
	d := newDiskGraph(g.dir)
	for _, t := range g.mem.list {
		if err := d.add(t); err != nil {
			d.close()
			return err
		}
	}
	g.disk, g.mem = d, nil
	return nil
}

// Spilled reports whether g has moved to the compact store (for tests and logs).
func (g *spillGraph) Spilled() bool { return g.disk != nil }

func (g *spillGraph) Len() int {
	if g.disk != nil {
		return g.disk.len()
	}
	return g.mem.Len()
}

func (g *spillGraph) Match(s, p, o Term, fn func(Triple) error) error {
	if g.disk != nil {
		return g.disk.match(s, p, o, fn)
	}
	return g.mem.Match(s, p, o, fn)
}

func (g *spillGraph) Close() error {
	if g.disk != nil {
		err := g.disk.close()
		g.disk = nil
		return err
	}
	if g.mem != nil {
		g.mem.Close()
	}
	return nil
}

// termCache is how many decoded terms are cached by id (direct-mapped).
const termCache = 1 << 12

// termChunk is the bytes of a term arena chunk (a longer term gets a chunk of its own), and
// termMemBytes how many bytes of arena stay in memory before chunks go to the file (variables
// so that tests can lower them). 16 MiB of arena were most of a large catalog's live heap while
// it is listed (a whole harvest runs beside it, under the binary's 128 MiB soft memory limit);
// the terms past them are read through termBytes's page cache and the system's.
var termChunk, termMemBytes = 1 << 20, 4 << 20 // termChunk: a power of two

// idTriple is a triple of term ids.
type idTriple struct{ s, p, o uint32 }

func compareSPO(a, b idTriple) int {
	if c := cmp.Compare(a.s, b.s); c != 0 {
		return c
	}
	if c := cmp.Compare(a.p, b.p); c != 0 {
		return c
	}
	return cmp.Compare(a.o, b.o)
}

// diskGraph is the compact store of a spillGraph.
type diskGraph struct {
	dir  string
	seed maphash.Seed
	// The term arena: chunks of records (uvarint length, termKey). A chunk written to the file
	// is nil in chunks and at fileAt[i] in file, fileLen[i] bytes (a chunk in memory later than
	// one in the file may stay there: the file's chunks are not all those after the first).
	chunks   [][]byte
	fileAt   []int64
	fileLen  []int64
	resident int
	file     *os.File
	path     string // the file's name while it has one
	fileEnd  int64
	// The term ids: terms is how many, ref[id/refEvery] is chunk<<shift | offset (shift:
	// termChunk's bits, 20) of term id-id%refEvery, hash[id] the term key's hash; table holds
	// id+1 by hash, linear probing, at most three quarters full.
	shift int
	terms int
	ref   []uint32
	hash  []uint32
	table []uint32
	key   []byte // a scratch term key
	// The triples: added ones wait in pending, then go to spo's file; spo is sorted by (s, p, o)
	// at the first Match or Len after adding, ops made from it (by (o, p, s)) at the first
	// Match by object.
	pending []idTriple
	spo     tripleFile
	ops     tripleFile
	bufs    [][]byte // read buffers free for a walk (a Match inside a Match takes another)
	lastS   Term     // the last subject added and its id (a subject's triples come together)
	lastID  uint32
	cache   [termCache]struct {
		id uint32 // id+1
		t  Term
	}
	// subjects has bit id set when term id is the subject of a triple: a Match by a subject
	// that has none (a record's closure walks to every IRI object: a publisher, a theme, a
	// download URL) reads nothing.
	subjects []uint64
	blanks   blankTerms     // which terms are blank nodes, numbered (MatchBlankIDs)
	buf      []byte         // termBytes's ReadAt buffer
	pages    []termFilePage // pages of the terms' file termBytes keeps (termPages of termPage bytes)
	err      error          // an error of sorting that len could not return
}

func newDiskGraph(dir string) *diskGraph {
	return &diskGraph{dir: dir, seed: maphash.MakeSeed(), table: make([]uint32, 1<<16), shift: bits.Len(uint(termChunk - 1))}
}

func (d *diskGraph) add(t Triple) error {
	var s uint32
	if t.S == d.lastS && d.lastS.Kind != 0 {
		s = d.lastID
	} else {
		var err error
		if s, err = d.intern(t.S); err != nil {
			return err
		}
		d.lastS, d.lastID = t.S, s
	}
	p, err := d.intern(t.P)
	if err != nil {
		return err
	}
	o, err := d.intern(t.O)
	if err != nil {
		return err
	}
	if w := int(s >> 6); w >= len(d.subjects) {
		d.subjects = append(d.subjects, make([]uint64, w+1-len(d.subjects)+len(d.subjects)/4)...)
	}
	d.subjects[s>>6] |= 1 << (s & 63)
	d.pending = append(d.pending, idTriple{s, p, o})
	if len(d.pending) >= pendingTriples {
		return d.flush()
	}
	return nil
}

// flush appends the pending triples to spo's file.
func (d *diskGraph) flush() error {
	if len(d.pending) == 0 {
		return nil
	}
	if err := d.spo.open(d.dir); err != nil {
		return err
	}
	if err := d.spo.write(d.spo.n, d.pending); err != nil {
		return err
	}
	d.spo.n += len(d.pending)
	d.spo.sorted, d.spo.index = false, nil
	d.ops.n, d.ops.sorted, d.ops.index = 0, false, nil
	d.pending = d.pending[:0]
	return nil
}

// sort sorts spo's file by (s, p, o) without repeats, the pending triples included: it reads the
// file into memory (12 bytes a triple, for as long as the sort takes) and writes it back.
func (d *diskGraph) sort() error {
	if len(d.pending) == 0 && d.spo.sorted {
		return nil
	}
	if err := d.flush(); err != nil {
		return err
	}
	all, err := d.spo.read()
	if err != nil {
		return err
	}
	slices.SortFunc(all, compareSPO)
	all = slices.Compact(all)
	return d.spo.replace(all)
}

// objects makes ops, spo's triples as (o, p, s) sorted, when spo has changed since.
func (d *diskGraph) objects() error {
	if d.ops.sorted {
		return nil
	}
	all, err := d.spo.read()
	if err != nil {
		return err
	}
	for i, t := range all {
		all[i] = idTriple{t.o, t.p, t.s}
	}
	slices.SortFunc(all, compareSPO)
	if err := d.ops.open(d.dir); err != nil {
		return err
	}
	return d.ops.replace(all)
}

// len is the number of distinct triples; an error sorting them is kept for the next Match.
func (d *diskGraph) len() int {
	if err := d.sort(); err != nil && d.err == nil {
		d.err = err
	}
	return d.spo.n
}

// term returns term id.
func (d *diskGraph) term(id uint32) (Term, error) {
	c := &d.cache[id%termCache]
	if c.id == id+1 {
		return c.t, nil
	}
	b, err := d.termBytes(id)
	if err != nil {
		return Term{}, err
	}
	t, err := decodeTermKey(b)
	if err != nil {
		return Term{}, err
	}
	c.id, c.t = id+1, t
	return t, nil
}

func (d *diskGraph) match(s, p, o Term, fn func(Triple) error) error {
	if d.err != nil {
		return d.err
	}
	if err := d.sort(); err != nil {
		return err
	}
	var ids [3]uint32
	for i, t := range [3]Term{s, p, o} {
		if t.IsZero() {
			continue
		}
		id, ok, err := d.lookup(t)
		if err != nil || !ok {
			return err
		}
		ids[i] = id
	}
	emit := func(tr idTriple) error {
		out, err := d.triple(tr)
		if err != nil {
			return err
		}
		return fn(out)
	}
	low := func(a uint32, b Term, bid uint32) uint64 {
		if b.IsZero() {
			return uint64(a) << 32
		}
		return uint64(a)<<32 | uint64(bid)
	}
	switch {
	case !s.IsZero():
		if w := int(ids[0] >> 6); w >= len(d.subjects) || d.subjects[w]&(1<<(ids[0]&63)) == 0 {
			return nil
		}
		return d.walk(&d.spo, low(ids[0], p, ids[1]), func(tr idTriple) (bool, error) {
			if tr.s != ids[0] || !p.IsZero() && tr.p != ids[1] {
				return false, nil
			}
			if !o.IsZero() && tr.o != ids[2] {
				return true, nil
			}
			return true, emit(tr)
		})
	case !o.IsZero():
		if err := d.objects(); err != nil {
			return err
		}
		return d.walk(&d.ops, low(ids[2], p, ids[1]), func(tr idTriple) (bool, error) {
			if tr.s != ids[2] || !p.IsZero() && tr.p != ids[1] {
				return false, nil
			}
			return true, emit(idTriple{tr.o, tr.p, tr.s})
		})
	default:
		if p.IsZero() {
			d.dropIndex() // every triple: no term is looked up meanwhile
		}
		return d.walk(&d.spo, 0, func(tr idTriple) (bool, error) {
			if !p.IsZero() && tr.p != ids[1] {
				return true, nil
			}
			return true, emit(tr)
		})
	}
}

// walk calls visit with f's triples from the first whose (first, second) key is at least low,
// in order, until visit returns false or an error. It reads a block first (a lookup), then
// larger runs.
func (d *diskGraph) walk(f *tripleFile, low uint64, visit func(idTriple) (bool, error)) error {
	b, _ := slices.BinarySearch(f.index, low)
	pos := max(b-1, 0) * tripleBlock
	var buf []byte
	if n := len(d.bufs); n > 0 {
		buf, d.bufs = d.bufs[n-1], d.bufs[:n-1]
	}
	defer func() { d.bufs = append(d.bufs, buf[:0]) }()
	run := tripleBlock
	for pos < f.n {
		k := min(run, f.n-pos)
		if cap(buf) < k*tripleBytes {
			buf = make([]byte, run*tripleBytes)
		}
		buf = buf[:k*tripleBytes]
		if _, err := f.f.ReadAt(buf, int64(pos)*tripleBytes); err != nil {
			return fmt.Errorf("rdf: graph spill file: %w", err)
		}
		for i := 0; i < len(buf); i += tripleBytes {
			tr := decodeTriple(buf[i:])
			if uint64(tr.s)<<32|uint64(tr.p) < low {
				continue
			}
			if more, err := visit(tr); err != nil || !more {
				return err
			}
		}
		pos += k
		run = min(2*run, 8192)
	}
	return nil
}

// tripleBlock is how many triples of a sorted triple file one entry of its index stands for,
// tripleBytes a triple's size in the file and pendingTriples how many wait in memory.
const (
	tripleBlock    = 128
	tripleBytes    = 12
	pendingTriples = 1 << 16
)

// tripleFile is a temporary file of triples of term ids, 12 bytes each (little-endian s, p, o).
type tripleFile struct {
	f      *os.File
	path   string // the file's name while it has one
	n      int    // triples in the file
	sorted bool   // sorted by (s, p, o) without repeats, and index made
	index  []uint64
}

func (f *tripleFile) open(dir string) error {
	if f.f != nil {
		return nil
	}
	var err error
	f.f, f.path, err = openSpillFile(dir)
	return err
}

func decodeTriple(b []byte) idTriple {
	return idTriple{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])}
}

// write writes ts at triple position at.
func (f *tripleFile) write(at int, ts []idTriple) error {
	buf := make([]byte, 0, min(len(ts), 8192)*tripleBytes)
	for len(ts) > 0 {
		k := min(len(ts), 8192)
		buf = buf[:0]
		for _, t := range ts[:k] {
			buf = binary.LittleEndian.AppendUint32(buf, t.s)
			buf = binary.LittleEndian.AppendUint32(buf, t.p)
			buf = binary.LittleEndian.AppendUint32(buf, t.o)
		}
		if _, err := f.f.WriteAt(buf, int64(at)*tripleBytes); err != nil {
			return fmt.Errorf("rdf: graph spill file: %w", err)
		}
		at, ts = at+k, ts[k:]
	}
	return nil
}

// read returns the file's triples.
func (f *tripleFile) read() ([]idTriple, error) {
	all := make([]idTriple, 0, f.n)
	buf := make([]byte, min(f.n, 8192)*tripleBytes)
	for pos := 0; pos < f.n; {
		k := min(f.n-pos, 8192)
		if _, err := f.f.ReadAt(buf[:k*tripleBytes], int64(pos)*tripleBytes); err != nil {
			return nil, fmt.Errorf("rdf: graph spill file: %w", err)
		}
		for i := 0; i < k*tripleBytes; i += tripleBytes {
			all = append(all, decodeTriple(buf[i:]))
		}
		pos += k
	}
	return all, nil
}

// replace makes ts, sorted without repeats, the file's triples, and indexes them.
func (f *tripleFile) replace(ts []idTriple) error {
	if err := f.write(0, ts); err != nil {
		return err
	}
	if err := f.f.Truncate(int64(len(ts)) * tripleBytes); err != nil {
		return fmt.Errorf("rdf: graph spill file: %w", err)
	}
	f.n, f.sorted = len(ts), true
	f.index = make([]uint64, 0, (len(ts)+tripleBlock-1)/tripleBlock)
	for i := 0; i < len(ts); i += tripleBlock {
		f.index = append(f.index, uint64(ts[i].s)<<32|uint64(ts[i].p))
	}
	return nil
}

func (f *tripleFile) close() error {
	if f.f == nil {
		return nil
	}
	err := f.f.Close()
	if f.path != "" {
		if rmErr := os.Remove(f.path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) && err == nil {
			err = rmErr
		}
	}
	*f = tripleFile{}
	return err
}

// openSpillFile makes a temporary file under dir and removes its name (it stays open, so the
// file goes with the process, even on kill -9); path is the name when the system refused.
func openSpillFile(dir string) (f *os.File, path string, err error) {
	f, err = os.CreateTemp(dir, "harvester-graph-*")
	if err != nil {
		return nil, "", fmt.Errorf("rdf: graph spill file: %w", err)
	}
	path = f.Name()
	if os.Remove(path) == nil {
		path = ""
	}
	return f, path, nil
}

func (d *diskGraph) close() error {
	terms := tripleFile{f: d.file, path: d.path} // closed alike
	err := errors.Join(d.spo.close(), d.ops.close(), terms.close())
	*d = diskGraph{}
	return err
}
