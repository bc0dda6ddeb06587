package dcatap

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
)

// refiner hashes the nodes of one strongly connected component of blank nodes (a cycle) by
// canonical colour refinement, the 1-dimensional Weisfeiler–Leman algorithm run as partition
// refinement with Hopcroft's "all but the largest piece" rule (Cardon and Crochemore 1982;
// Berkholz, Bonsma and Grohe, "Tight lower and upper bounds for the complexity of canonical
// colour refinement", 2017): O((n+m) log n) steps for n nodes and m arcs inside the component,
// where refining by rounds costs up to n rounds of O(n+m) (a ring of 10,000 nodes took minutes).
//
//   - The initial partition groups the nodes by their round-0 digest (their lines, with the
//     component's nodes written as one placeholder "_:"), cells ordered by digest.
//   - A cell S refines every cell X: X splits by how many arcs of each predicate its nodes have
//     into S. The pieces take X's place in elems, the nodes with no arc into S first, then by
//     that count signature. Every choice depends only on digests, predicates and counts, never
//     on blank labels or input order, so a cell's start index in elems is an isomorphism
//     invariant: the colour.
//   - The end is the coarsest equitable partition: nodes of one cell have, for each predicate
//     and cell, the same number of arcs into it. Each cell's description (its start, size,
//     round-0 digest and those counts) is hashed into the component's quotient, and a node's hash
//     is the hash of the quotient and its cell: two components share hashes only when their
//     quotients are equal.
type refiner struct {
	init  []digest // each node's round-0 digest
	in    [][]arc  // in[w]: the arcs into w from the component, as (from, predicate)
	out   [][]arc  // out[v]: v's distinct arcs inside the component, as (to, predicate)
	preds []string // predicate N-Triples by id, sorted

	elems  []int32 // the nodes, cell by cell
	pos    []int32 // pos[v]: v's index in elems
	cell   []int32 // cell[v]: the start of v's cell in elems
	end    []int32 // end[s]: the end of the cell that starts at s
	queued []bool  // queued[s]: the cell that starts at s waits in queue
	queue  []int32 // cells to refine by, first in first out

	sig     [][]int32 // per node: the predicates of its arcs into the splitter
	key     []string  // per node: its signature, encoded
	touched []int32
	steps   int
}

type arc struct{ node, pred int32 }

// newRefiner builds the refiner of the component scc (search numbers of h's nodes); node i of
// the refiner is scc[i].
func newRefiner(h *blankHasher, scc []int32) *refiner {
	n := len(scc)
	local := make(map[int32]int32, n) // node number -> index in scc
	for i, v := range scc {
		local[h.nodes[v].id] = int32(i)
	}
	r := &refiner{init: make([]digest, n), in: make([][]arc, n), out: make([][]arc, n),
		elems: make([]int32, n), pos: make([]int32, n), cell: make([]int32, n), end: make([]int32, n),
		queued: make([]bool, n), sig: make([][]int32, n), key: make([]string, n)}
	predID := map[string]int32{}
	for i, v := range scc {
		r.init[i] = h.digestOf("cycle0", h.edgesOf(v), local)
		for _, e := range h.edgesOf(v) {
			if _, ok := local[e.o]; ok {
				predID[h.in.preds[e.p]] = 0
			}
		}
	}
	for p := range predID {
		r.preds = append(r.preds, p)
	}
	slices.Sort(r.preds)
	for i, p := range r.preds {
		predID[p] = int32(i)
	}
	for i, v := range scc {
		for _, e := range h.edgesOf(v) {
			if j, ok := local[e.o]; ok {
				r.out[i] = append(r.out[i], arc{j, predID[h.in.preds[e.p]]})
			}
		}
		slices.SortFunc(r.out[i], compareArcs)
		r.out[i] = slices.Compact(r.out[i]) // a triple given twice is one arc
		for _, a := range r.out[i] {
			r.in[a.node] = append(r.in[a.node], arc{int32(i), a.pred})
		}
	}
	r.initialPartition()
	return r
}

func compareArcs(a, b arc) int {
	return cmp.Or(cmp.Compare(a.pred, b.pred), cmp.Compare(a.node, b.node))
}

// initialPartition orders the nodes by round-0 digest, one cell per digest, every cell queued.
func (r *refiner) initialPartition() {
	for i := range r.elems {
		r.elems[i] = int32(i)
	}
	slices.SortFunc(r.elems, func(a, b int32) int { return bytes.Compare(r.init[a][:], r.init[b][:]) })
	start := int32(0)
	for i, v := range r.elems {
		r.pos[v] = int32(i)
		if i > 0 && r.init[v] != r.init[r.elems[i-1]] {
			r.end[start] = int32(i)
			r.enqueue(start)
			start = int32(i)
		}
		r.cell[v] = start
	}
	r.end[start] = int32(len(r.elems))
	r.enqueue(start)
}

func (r *refiner) enqueue(s int32) {
	if !r.queued[s] {
		r.queued[s] = true
		r.queue = append(r.queue, s)
	}
}

// run refines until no cell splits another.
func (r *refiner) run() {
	for len(r.queue) > 0 {
		s := r.queue[0]
		r.queue = r.queue[1:]
		r.queued[s] = false
		r.refineBy(s)
	}
}

// refineBy splits every cell by the number of arcs of each predicate its nodes have into the
// cell that starts at s.
func (r *refiner) refineBy(s int32) {
	touched := r.touched[:0]
	for _, w := range r.elems[s:r.end[s]] {
		r.steps++
		for _, a := range r.in[w] {
			if len(r.sig[a.node]) == 0 {
				touched = append(touched, a.node)
			}
			r.sig[a.node] = append(r.sig[a.node], a.pred)
			r.steps++
		}
	}
	var buf []byte
	for _, u := range touched {
		slices.Sort(r.sig[u])
		buf = buf[:0]
		for ps := r.sig[u]; len(ps) > 0; {
			n := runLength(ps)
			buf = binary.AppendUvarint(buf, uint64(ps[0]))
			buf = binary.AppendUvarint(buf, uint64(n))
			ps = ps[n:]
		}
		r.key[u] = string(buf)
	}
	slices.SortFunc(touched, func(a, b int32) int {
		return cmp.Or(cmp.Compare(r.cell[a], r.cell[b]), cmp.Compare(r.key[a], r.key[b]))
	})
	for i := 0; i < len(touched); {
		j := i + 1
		for j < len(touched) && r.cell[touched[j]] == r.cell[touched[i]] {
			j++
		}
		r.split(touched[i:j])
		i = j
	}
	for _, u := range touched {
		r.sig[u], r.key[u] = r.sig[u][:0], ""
	}
	r.touched = touched
}

// split splits the cell of the touched nodes ts (sorted by key, all in one cell): the nodes not
// in ts keep its start, then come the nodes of ts, one piece per key. The new pieces are queued:
// all of them when the cell was queued, else all but the largest (the first largest).
func (r *refiner) split(ts []int32) {
	xs := r.cell[ts[0]]
	xe := r.end[xs]
	r.steps += len(ts)
	if len(ts) == int(xe-xs) && r.key[ts[0]] == r.key[ts[len(ts)-1]] {
		return
	}
	b := xe // move ts to the end of the cell, in key order
	for _, t := range ts {
		b--
		p, o := r.pos[t], r.elems[b]
		r.elems[p], r.pos[o] = o, p
		r.elems[b], r.pos[t] = t, b
	}
	for i, t := range ts {
		r.elems[b+int32(i)], r.pos[t] = t, b+int32(i)
	}
	var starts []int32
	if b > xs {
		starts = append(starts, xs)
		r.end[xs] = b
	}
	for i := 0; i < len(ts); {
		j := i + 1
		for j < len(ts) && r.key[ts[j]] == r.key[ts[i]] {
			j++
		}
		st := b + int32(i)
		r.end[st] = b + int32(j)
		for _, t := range ts[i:j] {
			r.cell[t] = st
		}
		starts = append(starts, st)
		i = j
	}
	largest := int32(-1)
	if !r.queued[xs] {
		largest = starts[0]
		for _, st := range starts[1:] {
			if r.end[st]-st > r.end[largest]-largest {
				largest = st
			}
		}
	}
	for _, st := range starts {
		if st != largest {
			r.enqueue(st)
		}
	}
}

// digests returns each node's hash: SHA-256 of "component", the quotient's digest and the
// node's cell.
func (r *refiner) digests() []digest {
	q := sha256.New()
	q.Write([]byte("quotient\n"))
	var line []byte
	var pairs []arc // (target cell, predicate)
	for s := int32(0); s < int32(len(r.elems)); s = r.end[s] {
		rep := r.elems[s]
		line = strconv.AppendInt(line[:0], int64(s), 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(r.end[s]-s), 10)
		line = append(line, ' ')
		line = append(line, r.init[rep][:]...)
		line = append(line, '\n')
		pairs = pairs[:0]
		for _, a := range r.out[rep] {
			pairs = append(pairs, arc{r.cell[a.node], a.pred})
		}
		slices.SortFunc(pairs, compareArcs)
		for ps := pairs; len(ps) > 0; {
			n := runLength(ps)
			line = append(line, r.preds[ps[0].pred]...)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(ps[0].node), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(n), 10)
			line = append(line, '\n')
			ps = ps[n:]
		}
		q.Write(line)
	}
	quotient := q.Sum(nil)
	byCell := map[int32]digest{}
	out := make([]digest, len(r.elems))
	for v := range out {
		d, ok := byCell[r.cell[v]]
		if !ok {
			f := sha256.New()
			f.Write([]byte("component\n"))
			f.Write(quotient)
			f.Write(strconv.AppendInt(nil, int64(r.cell[v]), 10))
			f.Sum(d[:0])
			byCell[r.cell[v]] = d
		}
		out[v] = d
	}
	return out
}

// runLength is how many elements at the start of xs equal xs[0].
func runLength[T comparable](xs []T) int {
	n := 1
	for n < len(xs) && xs[n] == xs[0] {
		n++
	}
	return n
}
