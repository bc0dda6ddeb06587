package bleve

// SetDictFacetMinHits sets dictFacetMinHits to n and returns what puts it back.
func SetDictFacetMinHits(n int) (restore func()) {
	old := dictFacetMinHits
	dictFacetMinHits = n
	return func() { dictFacetMinHits = old }
}
