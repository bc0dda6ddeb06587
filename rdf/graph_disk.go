package rdf

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// NewGraph returns a Graph that holds up to maxMemTriples distinct triples in memory (a
// MemGraph) and, when one more arrives, moves them all to a temporary SQLite file under dir
// (os.TempDir() when dir is "") and goes on there, so that a catalog of any size parses in
// bounded memory (DESIGN.md rule 4). On disk, terms are interned in a table (one row per
// distinct term), and triples are three term ids with a unique index on (s, p, o) and
// indexes on (p, o) and (o): Match by subject, by subject and predicate, by (predicate,
// object), by object, and a full scan are index walks. Match reads in pages of 1,000 rows and
// calls fn with no query open, so fn may call Match again (a closure walk), but must not Add.
// The file's name is removed as soon as SQLite has opened it (a few milliseconds after it is
// made; where the system refuses, as Windows does, Close removes it): the file is freed when
// the graph closes or the process ends, however it ends (kill -9 included), and none is left
// behind in dir. maxMemTriples <= 0 spills at the first triple.
//
// Measured (BenchmarkGraph1M, 2 shared cores): 1,000,000 generated N-Triples parsed into
// NewGraph(dir, 50000) take ~42 s and peak at ~69 MiB of Go heap and ~97 MiB RSS for the
// whole test process (the SQLite page cache is capped at 16 MiB); with 100,000 in memory the
// peak is ~270 MiB RSS, so keep maxMemTriples near 50,000. On disk an Add costs ~40 µs.
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
	d, err := openDiskGraph(g.dir)
	if err != nil {
		return err
	}
	for _, t := range g.mem.list {
		if err := d.add(t); err != nil {
			d.close()
			return err
		}
	}
	g.disk, g.mem = d, nil
	return nil
}

// Spilled reports whether g has moved to disk (for tests and logs).
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

// diskGraph is the SQLite part of a spillGraph.
type diskGraph struct {
	path    string // the file's name, "" once removed
	db      *sql.DB
	tx      *sql.Tx // the open write batch, or nil
	pending int
	n       int
	ids     map[Term]int64 // a bounded cache of term ids
	insTerm *sql.Stmt
	selTerm *sql.Stmt
	insTrip *sql.Stmt
	insRows *sql.Stmt            // insTrip of tripleRows rows
	rows    []any                // the ids of triples not yet inserted, three a triple
	err     error                // an error of inserting them that len could not return
	txIns   [4]*sql.Stmt         // the statements bound to tx
	sel     map[string]*sql.Stmt // match's prepared queries, by text (at most 8)
	// subjects has bit id set when term id is the subject of a triple: a Match by a subject
	// that has none (a record's closure walks to every IRI object: a publisher, a theme, a
	// download URL) asks no query (an eighth of a byte a term).
	subjects []uint64
}

const (
	tripleRows    = 64    // triples per insert statement
	diskBatch     = 20000 // triples per write transaction
	diskPage      = 1000  // rows per Match page
	termCacheSize = 100000
)

func openDiskGraph(dir string) (*diskGraph, error) {
	f, err := os.CreateTemp(dir, "harvester-graph-*.sqlite")
	if err != nil {
		return nil, fmt.Errorf("rdf: graph spill file: %w", err)
	}
	path := f.Name()
	f.Close()
	q := url.Values{}
	for _, p := range []string{"journal_mode(OFF)", "synchronous(OFF)", "cache_size(-16000)", "temp_store(FILE)", "locking_mode(EXCLUSIVE)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("rdf: graph spill file: %w", err)
	}
	// One connection for the graph's life: once the file's name is gone (below), another
	// connection would open a new, empty file.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	d := &diskGraph{path: path, db: db, ids: map[Term]int64{}, sel: map[string]*sql.Stmt{}}
	if _, err := db.Exec(`
		CREATE TABLE term (id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE);
		CREATE TABLE triple (s INTEGER NOT NULL, p INTEGER NOT NULL, o INTEGER NOT NULL, UNIQUE (s, p, o));
		CREATE INDEX triple_po ON triple (p, o);
		CREATE INDEX triple_o ON triple (o);`); err != nil {
		d.close()
		return nil, fmt.Errorf("rdf: graph spill file: %w", err)
	}
	// SQLite holds the file open from here on (one connection, exclusive lock, no journal to
	// create beside it): its name can go, so the file goes with the process, even on kill -9.
	if err := os.Remove(path); err == nil {
		d.path = ""
	}
	for _, st := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&d.insTerm, `INSERT INTO term (key) VALUES (?) ON CONFLICT (key) DO NOTHING`},
		{&d.selTerm, `SELECT id FROM term WHERE key = ?`},
		{&d.insTrip, `INSERT INTO triple (s, p, o) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`},
		{&d.insRows, `INSERT INTO triple (s, p, o) VALUES (?, ?, ?)` + strings.Repeat(`, (?, ?, ?)`, tripleRows-1) +
			` ON CONFLICT DO NOTHING`},
	} {
		if *st.dst, err = db.Prepare(st.sql); err != nil {
			d.close()
			return nil, fmt.Errorf("rdf: graph spill file: %w", err)
		}
	}
	return d, nil
}

// termKey encodes a term as kind, uvarint-prefixed value and datatype, then the language.
func termKey(t Term) []byte {
	b := make([]byte, 0, 1+len(t.Value)+len(t.Datatype)+len(t.Lang)+4)
	b = append(b, byte(t.Kind))
	b = binary.AppendUvarint(b, uint64(len(t.Value)))
	b = append(b, t.Value...)
	b = binary.AppendUvarint(b, uint64(len(t.Datatype)))
	b = append(b, t.Datatype...)
	return append(b, t.Lang...)
}

func decodeTermKey(b []byte) (Term, error) {
	bad := errors.New("rdf: corrupt term in graph spill file")
	if len(b) < 1 {
		return Term{}, bad
	}
	t := Term{Kind: TermKind(b[0])}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return Term{}, bad
	}
	t.Value, b = string(b[k:k+int(n)]), b[k+int(n):]
	n, k = binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return Term{}, bad
	}
	t.Datatype, t.Lang = string(b[k:k+int(n)]), string(b[k+int(n):])
	return t, nil
}

func (d *diskGraph) begin() error {
	if d.tx != nil {
		return nil
	}
	tx, err := d.db.Begin()
	if err != nil {
		return err
	}
	d.tx = tx
	d.txIns = [4]*sql.Stmt{tx.Stmt(d.insTerm), tx.Stmt(d.selTerm), tx.Stmt(d.insTrip), tx.Stmt(d.insRows)}
	return nil
}

func (d *diskGraph) commit() error {
	if d.err != nil {
		return d.err
	}
	if d.tx == nil {
		return nil
	}
	if err := d.insertRows(); err != nil {
		return err
	}
	err := d.tx.Commit()
	d.tx, d.pending = nil, 0
	if err != nil {
		return fmt.Errorf("rdf: graph spill file: %w", err)
	}
	return nil
}

func (d *diskGraph) termID(t Term) (int64, error) {
	if id, ok := d.ids[t]; ok {
		return id, nil
	}
	// A new term's id is the row the insert made (one statement); only a term that is in the
	// table but not in the cache is looked up.
	key := termKey(t)
	res, err := d.txIns[0].Exec(key)
	if err != nil {
		return 0, err
	}
	var id int64
	if n, err := res.RowsAffected(); err == nil && n == 1 {
		id, err = res.LastInsertId()
		if err != nil {
			return 0, err
		}
	} else if err := d.txIns[1].QueryRow(key).Scan(&id); err != nil {
		return 0, err
	}
	d.cache(t, id)
	return id, nil
}

// cache keeps t's id in the bounded cache.
func (d *diskGraph) cache(t Term, id int64) {
	if len(d.ids) >= termCacheSize {
		clear(d.ids)
	}
	d.ids[t] = id
}

func (d *diskGraph) add(t Triple) error {
	if d.err != nil {
		return d.err
	}
	if err := d.begin(); err != nil {
		return fmt.Errorf("rdf: graph spill file: %w", err)
	}
	var ids [3]int64
	for i, term := range [3]Term{t.S, t.P, t.O} {
		id, err := d.termID(term)
		if err != nil {
			return fmt.Errorf("rdf: graph spill file: %w", err)
		}
		ids[i] = id
	}
	d.rows = append(d.rows, ids[0], ids[1], ids[2])
	if len(d.rows) == 3*tripleRows {
		if err := d.insertRows(); err != nil {
			return err
		}
	}
	if d.pending++; d.pending >= diskBatch {
		return d.commit()
	}
	return nil
}

// insertRows inserts the triples in rows: tripleRows at once with one statement (a statement
// a triple was half of the time of adding one), fewer one by one. Duplicates are counted out.
func (d *diskGraph) insertRows() error {
	rows := d.rows
	d.rows = d.rows[:0]
	for i := 0; i < len(rows); i += 3 {
		id := rows[i].(int64)
		if w := int(id >> 6); w >= len(d.subjects) {
			d.subjects = append(d.subjects, make([]uint64, w+1-len(d.subjects)+len(d.subjects)/4)...)
		}
		d.subjects[id>>6] |= 1 << (id & 63)
	}
	stmt, width := d.txIns[3], 3*tripleRows
	for len(rows) > 0 {
		if len(rows) < width {
			stmt, width = d.txIns[2], 3
		}
		res, err := stmt.Exec(rows[:width]...)
		if err != nil {
			return fmt.Errorf("rdf: graph spill file: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("rdf: graph spill file: %w", err)
		}
		d.n += int(n)
		rows = rows[width:]
	}
	return nil
}

// len is the number of distinct triples, those not yet inserted inserted first; an error
// doing so is kept for the next add or match.
func (d *diskGraph) len() int {
	if len(d.rows) > 0 && d.err == nil {
		d.err = d.insertRows()
	}
	return d.n
}

// lookup returns a term's id, or ok=false when the graph has no such term.
func (d *diskGraph) lookup(t Term) (int64, bool, error) {
	if id, ok := d.ids[t]; ok {
		return id, true, nil
	}
	var id int64
	err := d.selTerm.QueryRow(termKey(t)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

func (d *diskGraph) match(s, p, o Term, fn func(Triple) error) error {
	if err := d.commit(); err != nil {
		return err
	}
	where, args := "t.rowid > ?", []any{int64(0)}
	for _, c := range []struct {
		col  string
		term Term
	}{{"t.s", s}, {"t.p", p}, {"t.o", o}} {
		if c.term.IsZero() {
			continue
		}
		id, ok, err := d.lookup(c.term)
		if err != nil {
			return fmt.Errorf("rdf: graph spill file: %w", err)
		}
		if !ok || c.col == "t.s" && !d.isSubject(id) {
			return nil
		}
		where += " AND " + c.col + " = ?"
		args = append(args, id)
	}
	q := `SELECT t.rowid, t.o, ts.key, tp.key, tt.key FROM triple t
		JOIN term ts ON ts.id = t.s JOIN term tp ON tp.id = t.p JOIN term tt ON tt.id = t.o
		WHERE ` + where + ` ORDER BY t.rowid LIMIT ` + fmt.Sprint(diskPage)
	stmt, ok := d.sel[q]
	if !ok {
		var err error
		if stmt, err = d.db.Prepare(q); err != nil {
			return fmt.Errorf("rdf: graph spill file: %w", err)
		}
		d.sel[q] = stmt
	}
	// The page grows as rows come: a lookup by subject, made once per blank node by a graph
	// hash, has a row or two, and a 1,000-triple page for each was most of its time.
	var page []Triple
	for {
		page = page[:0]
		rows, err := stmt.Query(args...)
		if err != nil {
			return fmt.Errorf("rdf: graph spill file: %w", err)
		}
		var last, oid int64
		for rows.Next() {
			var ks, kp, ko []byte
			if err := rows.Scan(&last, &oid, &ks, &kp, &ko); err != nil {
				rows.Close()
				return fmt.Errorf("rdf: graph spill file: %w", err)
			}
			var tr Triple
			var e1, e2, e3 error
			tr.S, e1 = decodeTermKey(ks)
			tr.P, e2 = decodeTermKey(kp)
			tr.O, e3 = decodeTermKey(ko)
			if err := errors.Join(e1, e2, e3); err != nil {
				rows.Close()
				return err
			}
			if !s.IsZero() && !tr.O.IsLiteral() {
				// A walk by subject (a record's closure) looks the object up next: its id
				// is known, so no query for it.
				d.cache(tr.O, oid)
			}
			page = append(page, tr)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("rdf: graph spill file: %w", err)
		}
		for _, tr := range page {
			if err := fn(tr); err != nil {
				return err
			}
		}
		if len(page) < diskPage {
			return nil
		}
		args[0] = last
	}
}

// isSubject reports whether term id is the subject of a triple.
func (d *diskGraph) isSubject(id int64) bool {
	w := int(id >> 6)
	return w < len(d.subjects) && d.subjects[w]&(1<<(id&63)) != 0
}

func (d *diskGraph) close() error {
	if d.tx != nil {
		d.tx.Rollback()
		d.tx = nil
	}
	err := d.db.Close()
	if d.path == "" {
		return err
	}
	if rmErr := os.Remove(d.path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) && err == nil {
		err = rmErr
	}
	return err
}
