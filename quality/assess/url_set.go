package assess

import "hash/maphash"

// urlSet is the set of distinct distribution URLs scoreSource has counted. It keeps a 128-bit
// keyed hash of each URL (two maphash sums under seeds drawn at random for the set) in place of
// the URL itself, as EXTRACT's identifierSet keeps a listing's identifiers: about 20-40 bytes a
// URL whatever its length, where a map of the strings kept each URL's bytes too (about 150
// bytes a URL of the corpus: a 100,000-record DCAT-US source has ~150,000 distinct URLs, ~22 MiB
// held while a job's quality is scored, which the collector's GOGC=300 made several times that
// in resident memory).
//
// Two different URLs are taken for one only when both 64-bit sums collide: with seeds no input
// can know, about one chance in 2^128 a pair.
type urlSet struct {
	seeds [2]maphash.Seed
	keys  map[[16]byte]struct{}
}

func newURLSet() *urlSet {
	return &urlSet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, keys: map[[16]byte]struct{}{}}
}

// add records u and reports true, or reports false when the set has it already.
func (s *urlSet) add(u string) bool {
	var k [16]byte
	a, b := maphash.String(s.seeds[0], u), maphash.String(s.seeds[1], u)
	for i := range 8 {
		k[i], k[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
	}
	if _, ok := s.keys[k]; ok {
		return false
	}
	s.keys[k] = struct{}{}
	return true
}

// len is how many URLs the set holds.
func (s *urlSet) len() int { return len(s.keys) }
