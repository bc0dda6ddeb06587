package rdf

// The compact store's terms: each distinct term interned as a 32-bit id (diskGraph.intern),
// its key bytes in an arena that goes to a temporary file past termMemBytes.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
)

// appendTermKey appends t encoded as kind, uvarint-prefixed value and datatype, then the
// language.
func appendTermKey(b []byte, t Term) []byte {
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

// refEvery is how many terms share an entry of diskGraph.ref: the place of every refEvery-th
// term in the arena is kept (a quarter of a byte a term, where a place a term took 4 bytes: 12
// MiB of the 3.15 million terms of a 209,715-dataset catalog, held through its listing), and a
// term's record is found by reading on from its group's first record (terms follow one another
// in the arena in id order; a chunk ends where its last record does).
const refEvery = 16

// termBytes returns the key of term id (valid until the next call).
func (d *diskGraph) termBytes(id uint32) ([]byte, error) {
	r := d.ref[id/refEvery]
	c, off := int(r>>d.shift), int(r&(1<<d.shift-1))
	for i := id - id%refEvery; ; i++ {
		b, err := d.record(c, off)
		if err != nil || i == id {
			return b, err
		}
		if off += uvarintLen(len(b)) + len(b); off >= d.chunkLen(c) {
			c, off = c+1, 0
		}
	}
}

// uvarintLen is the length of n as a uvarint.
func uvarintLen(n int) int {
	k := 1
	for ; n >= 0x80; n >>= 7 {
		k++
	}
	return k
}

// chunkLen is the bytes of arena chunk c (its records end there).
func (d *diskGraph) chunkLen(c int) int {
	if ch := d.chunks[c]; ch != nil {
		return len(ch)
	}
	return int(d.fileLen[c])
}

// record returns the key of the term record at offset off of arena chunk c (valid until the
// next call).
func (d *diskGraph) record(c, off int) ([]byte, error) {
	if ch := d.chunks[c]; ch != nil {
		n, k := binary.Uvarint(ch[off:])
		if k <= 0 || off+k+int(n) > len(ch) {
			return nil, errors.New("rdf: corrupt term in graph spill file")
		}
		return ch[off+k : off+k+int(n)], nil
	}
	at := d.fileAt[c] + int64(off)
	if b, ok, err := d.pagedTerm(at); err != nil || ok {
		return b, err
	}
	if cap(d.buf) < 64 {
		d.buf = make([]byte, 256)
	}
	b := d.buf[:64]
	m, err := d.file.ReadAt(b, at)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("rdf: graph spill file: %w", err)
	}
	n, k := binary.Uvarint(b[:m])
	if k <= 0 {
		return nil, errors.New("rdf: corrupt term in graph spill file")
	}
	if k+int(n) <= m {
		return b[k : k+int(n)], nil
	}
	if cap(d.buf) < int(n) {
		d.buf = make([]byte, n)
	}
	b = d.buf[:n]
	if _, err := d.file.ReadAt(b, at+int64(k)); err != nil {
		return nil, fmt.Errorf("rdf: graph spill file: %w", err)
	}
	return b, nil
}

// termPage is the bytes of a page of the terms' file that termBytes keeps, and termPages how
// many it keeps (direct-mapped by page number): a record's closure and the graph's scan read
// terms added together, so one read of a page serves the next terms where each cost a read of
// its own (7% of a 92 MB JSON-LD catalog's CPU, growing with the file).
const (
	termPage  = 16 << 10
	termPages = 64
)

// termFilePage is a page of the terms' file: page+1 (0: none) and its bytes (fewer than termPage
// at the end of the file, which later chunks may extend).
type termFilePage struct {
	page int64
	data []byte
}

// pagedTerm returns the key of the term record at file offset at when the record lies in one
// page, reading the page when it is not kept or is short of the record; ok=false otherwise.
func (d *diskGraph) pagedTerm(at int64) (key []byte, ok bool, err error) {
	page := at / termPage
	if d.pages == nil {
		d.pages = make([]termFilePage, termPages)
	}
	p := &d.pages[page%termPages]
	rel := int(at - page*termPage)
	for read := false; ; read = true {
		if p.page == page+1 && rel < len(p.data) {
			b := p.data[rel:]
			if n, k := binary.Uvarint(b); k > 0 && uint64(len(b)-k) >= n {
				return b[k : k+int(n)], true, nil
			}
		}
		if read || p.page == page+1 && len(p.data) == termPage {
			return nil, false, nil // the record crosses the page's end
		}
		if cap(p.data) < termPage {
			p.data = make([]byte, termPage)
		}
		m, err := d.file.ReadAt(p.data[:termPage], page*termPage)
		if err != nil && !errors.Is(err, io.EOF) {
			p.page = 0
			return nil, false, fmt.Errorf("rdf: graph spill file: %w", err)
		}
		p.page, p.data = page+1, p.data[:m]
	}
}

// find returns the id of the term whose key is d.key and its hash, ok=false when there is
// none (slot is then where to put it).
func (d *diskGraph) find() (id uint32, h uint32, slot int, ok bool, err error) {
	if d.table == nil {
		if err := d.rebuildIndex(); err != nil {
			return 0, 0, 0, false, err
		}
	}
	h = uint32(maphash.Bytes(d.seed, d.key))
	n := len(d.table)
	for i := tableSlot(h, n); ; i = nextSlot(i, n) {
		v := d.table[i]
		if v == 0 {
			return 0, h, i, false, nil
		}
		if d.hash[v-1] != h {
			continue
		}
		b, err := d.termBytes(v - 1)
		if err != nil {
			return 0, h, 0, false, err
		}
		if bytes.Equal(b, d.key) {
			return v - 1, h, i, true, nil
		}
	}
}

// lookup returns t's id, ok=false when the graph has no such term.
func (d *diskGraph) lookup(t Term) (uint32, bool, error) {
	d.key = appendTermKey(d.key[:0], t)
	id, _, _, ok, err := d.find()
	return id, ok, err
}

// intern returns t's id, adding it when new.
func (d *diskGraph) intern(t Term) (uint32, error) {
	d.key = appendTermKey(d.key[:0], t)
	id, h, slot, ok, err := d.find()
	if err != nil || ok {
		return id, err
	}
	if uint64(d.terms) >= 1<<32-1 {
		return 0, errors.New("rdf: graph spill: more than 4,294,967,294 terms")
	}
	rec := len(d.key) + binary.MaxVarintLen64
	c := len(d.chunks) - 1
	if c < 0 || len(d.chunks[c])+rec > cap(d.chunks[c]) {
		if len(d.chunks) >= 1<<(32-d.shift) {
			return 0, fmt.Errorf("rdf: graph spill: more than %d chunks of terms", 1<<(32-d.shift))
		}
		if err := d.retire(c); err != nil {
			return 0, err
		}
		d.chunks = append(d.chunks, make([]byte, 0, max(termChunk, rec)))
		d.fileAt, d.fileLen = append(d.fileAt, -1), append(d.fileLen, 0)
		c++
	}
	off := len(d.chunks[c])
	d.chunks[c] = append(binary.AppendUvarint(d.chunks[c], uint64(len(d.key))), d.key...)
	id = uint32(d.terms)
	if id%refEvery == 0 {
		d.ref = append(d.ref, uint32(c)<<d.shift|uint32(off)) // off < termChunk: 0 in a long term's own chunk
	}
	d.terms++
	d.hash = append(d.hash, h)
	d.table[slot] = id + 1
	if t.Kind == KindBlank {
		d.blanks.mark(id)
	}
	if d.terms*4 > len(d.table)*3 {
		d.grow()
	}
	return id, nil
}

// retire writes full chunk c to the file when the arena in memory has passed termMemBytes.
func (d *diskGraph) retire(c int) error {
	if c < 0 {
		return nil
	}
	if d.resident+len(d.chunks[c]) <= termMemBytes {
		d.resident += len(d.chunks[c])
		return nil
	}
	if d.file == nil {
		var err error
		if d.file, d.path, err = openSpillFile(d.dir); err != nil {
			return err
		}
	}
	if _, err := d.file.WriteAt(d.chunks[c], d.fileEnd); err != nil {
		return fmt.Errorf("rdf: graph spill file: %w", err)
	}
	d.fileAt[c], d.fileLen[c] = d.fileEnd, int64(len(d.chunks[c]))
	d.fileEnd += int64(len(d.chunks[c]))
	d.chunks[c] = nil
	return nil
}

// tableSlot is where the id table of n slots starts looking for a term of hash h: h scaled to
// n, so that n need not be a power of two (a table rebuilt for N terms has 1.5 N slots where a
// power of two would have 1.33–2.67 N: 32 MiB for 3.15 million terms where 19 do).
func tableSlot(h uint32, n int) int { return int(uint64(h) * uint64(n) >> 32) }

// nextSlot is the slot after i in a table of n slots (linear probing, wrapping).
func nextSlot(i, n int) int {
	if i++; i == n {
		return 0
	}
	return i
}

// grow doubles the id table.
func (d *diskGraph) grow() {
	t := make([]uint32, 2*len(d.table))
	n := len(t)
	for id, h := range d.hash {
		i := tableSlot(h, n)
		for t[i] != 0 {
			i = nextSlot(i, n)
		}
		t[i] = uint32(id) + 1
	}
	d.table = t
}

// dropIndex frees the id table and the terms' hashes (9–15 bytes a term: 72 MiB for 5 million
// terms) for as long as no term is looked up: a Match of every triple (GraphHash's scan, whose
// own memory is then at its highest) needs neither. The next lookup or new term makes them again
// (rebuildIndex).
func (d *diskGraph) dropIndex() { d.table, d.hash = nil, nil }

// rebuildIndex makes the id table and the terms' hashes again from the arena, read in id order
// (ids follow the arena: a chunk in the file is read whole, once, and its records one after
// another).
func (d *diskGraph) rebuildIndex() error {
	size := max(1<<16, d.terms+d.terms/2) // at most two thirds full
	d.table, d.hash = make([]uint32, size), make([]uint32, 0, d.terms)
	var buf []byte
	id := 0
	for c := 0; c < len(d.chunks) && id < d.terms; c++ {
		data := d.chunks[c]
		if data == nil {
			n := d.chunkLen(c)
			if cap(buf) < n {
				buf = make([]byte, n)
			}
			buf = buf[:n]
			if _, err := d.file.ReadAt(buf, d.fileAt[c]); err != nil {
				d.table, d.hash = nil, nil
				return fmt.Errorf("rdf: graph spill file: %w", err)
			}
			data = buf
		}
		for off := 0; off < len(data); id++ { // a chunk's records, each a term's, in id order
			n, k := binary.Uvarint(data[off:])
			if k <= 0 || off+k+int(n) > len(data) {
				d.table, d.hash = nil, nil
				return errors.New("rdf: corrupt term in graph spill file")
			}
			h := uint32(maphash.Bytes(d.seed, data[off+k:off+k+int(n)]))
			d.hash = append(d.hash, h)
			i := tableSlot(h, size)
			for d.table[i] != 0 {
				i = nextSlot(i, size)
			}
			d.table[i] = uint32(id) + 1
			off += k + int(n)
		}
	}
	if id != d.terms {
		d.table, d.hash = nil, nil
		return errors.New("rdf: corrupt term in graph spill file")
	}
	return nil
}
