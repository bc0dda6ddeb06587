package rdf

// SetJSONLDDirect turns the direct conversion of JSON-LD node objects on or off and returns a
// function that restores it.
func SetJSONLDDirect(on bool) (restore func()) {
	old := jsonldDirect
	jsonldDirect = on
	return func() { jsonldDirect = old }
}

// SetTermArena sets the spill graph's term arena chunk size and in-memory bound and returns a
// function that restores them.
func SetTermArena(chunk, mem int) (restore func()) {
	oldChunk, oldMem := termChunk, termMemBytes
	termChunk, termMemBytes = chunk, mem
	return func() { termChunk, termMemBytes = oldChunk, oldMem }
}

// TermIndexHeld reports whether g, NewGraph's graph spilled to disk, holds its table of terms by
// value (false while in memory).
func TermIndexHeld(g Graph) bool {
	sg, ok := g.(*spillGraph)
	return ok && sg.disk != nil && sg.disk.table != nil
}

// TermPlaces returns how many terms g, NewGraph's graph spilled to disk, has and how many arena
// places it keeps for them.
func TermPlaces(g Graph) (terms, places int) {
	d := g.(*spillGraph).disk
	return d.terms, len(d.ref)
}
