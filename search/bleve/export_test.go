package bleve

// SetUninvertMinHits sets uninvertMinHits to n and returns what puts it back.
func SetUninvertMinHits(n int) (restore func()) {
	old := uninvertMinHits
	uninvertMinHits = n
	return func() { uninvertMinHits = old }
}
