package dcatap

import (
	"hash/maphash"
	"math"
)

// labelTable numbers blank node labels 0, 1, … in the order first seen, compactly: the labels'
// bytes one after another in an arena, where each ends (4 bytes a label) and an open-addressing
// table of number+1 (linear probing, at most three quarters full: 5.3–10.7 bytes a label). About
// 20 bytes a label of 8 bytes, where a map[string]int32 took 68 MiB a million labels (the most
// of GraphHash's first pass on a chain of blank nodes).
type labelTable struct {
	seed  maphash.Seed
	arena []byte
	ends  []uint32 // label i is arena[ends[i-1]:ends[i]] (from 0 for i = 0)
	table []int32
}

func newLabelTable() *labelTable {
	return &labelTable{seed: maphash.MakeSeed(), table: make([]int32, 64)}
}

// len is how many labels are numbered.
func (l *labelTable) len() int { return len(l.ends) }

// at returns label i's bytes (valid while the table is).
func (l *labelTable) at(i int32) []byte {
	from := uint32(0)
	if i > 0 {
		from = l.ends[i-1]
	}
	return l.arena[from:l.ends[i]]
}

// find returns label's number, or -1 and the slot to put it in.
func (l *labelTable) find(label string) (int32, int) {
	mask := len(l.table) - 1
	for i := int(maphash.String(l.seed, label)) & mask; ; i = (i + 1) & mask {
		v := l.table[i]
		if v == 0 {
			return -1, i
		}
		if string(l.at(v-1)) == label {
			return v - 1, i
		}
	}
}

// lookup returns label's number, ok=false when it has none.
func (l *labelTable) lookup(label string) (int32, bool) {
	id, _ := l.find(label)
	return id, id >= 0
}

// number returns label's number, numbering it when new; ok=false when the arena would pass
// 4 GiB (labels of a document under the fetch caps never do).
func (l *labelTable) number(label string) (id int32, ok bool) {
	id, slot := l.find(label)
	if id >= 0 {
		return id, true
	}
	if uint64(len(l.arena))+uint64(len(label)) > math.MaxUint32 || len(l.ends) >= math.MaxInt32-1 {
		return -1, false
	}
	id = int32(len(l.ends))
	l.arena = append(l.arena, label...)
	l.ends = append(l.ends, uint32(len(l.arena)))
	l.table[slot] = id + 1
	if len(l.ends)*4 > len(l.table)*3 {
		l.grow()
	}
	return id, true
}

// grow doubles the table.
func (l *labelTable) grow() {
	t := make([]int32, 2*len(l.table))
	mask := len(t) - 1
	for id := range int32(len(l.ends)) {
		i := int(maphash.Bytes(l.seed, l.at(id))) & mask
		for t[i] != 0 {
			i = (i + 1) & mask
		}
		t[i] = id + 1
	}
	l.table = t
}
