package extract

import "hash/maphash"

// identifierSet is the set of identifiers one listing has seen, each with the position of the
// first record that used it: what finds a DuplicateIdentifier. It keeps a 128-bit keyed hash
// of each identifier (two maphash sums under seeds drawn at random for the set) in place of the
// identifier itself, so that its memory does not follow the identifiers' lengths: about 40
// bytes an identifier, against 90-100 for a map of the strings (a 100,000-record listing held
// ~10 MB, which the garbage collector's GOGC=300 turned into ~40 MB of peak RSS). The
// identifiers themselves are in the store (store.Store.JobIdentifierAddBatch), which delete
// detection reads.
//
// Two different identifiers are taken for one only when both 64-bit sums collide: with seeds
// no input can know, about one chance in 2^128 a pair (~10^-27 for a listing of a million
// identifiers), far below the chance that two different records share a SHA-256 source_hash,
// which COMPARE already takes for "unchanged".
type identifierSet struct {
	seeds [2]maphash.Seed
	first map[[16]byte]int
}

func newIdentifierSet() *identifierSet {
	return &identifierSet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, first: map[[16]byte]int{}}
}

func (s *identifierSet) key(identifier string) [16]byte {
	var k [16]byte
	a, b := maphash.String(s.seeds[0], identifier), maphash.String(s.seeds[1], identifier)
	for i := range 8 {
		k[i], k[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
	}
	return k
}

// firstAt returns the position of the first record with identifier, and whether there was one.
func (s *identifierSet) firstAt(identifier string) (int, bool) {
	pos, ok := s.first[s.key(identifier)]
	return pos, ok
}

// add records identifier at pos and reports true, or reports false when the set has it already
// (its first position is kept).
func (s *identifierSet) add(identifier string, pos int) bool {
	k := s.key(identifier)
	if _, ok := s.first[k]; ok {
		return false
	}
	s.first[k] = pos
	return true
}

// len is how many identifiers the set holds.
func (s *identifierSet) len() int { return len(s.first) }

// firstAt returns the position of the listing's first record with identifier, and whether
// there was one.
func (l *Run) FirstAt(identifier string) (int, bool) {
	if l.ids != nil {
		return l.ids.firstAt(identifier)
	}
	pos, ok := l.seen[identifier]
	return pos, ok
}
