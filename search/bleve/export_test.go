package bleve

// SetDictFacetMinHits sets uninvertMinHits to n and returns what puts it back.
func SetDictFacetMinHits(n int) (restore func()) {
	old := uninvertMinHits
	uninvertMinHits = n
	return func() { uninvertMinHits = old }
}
