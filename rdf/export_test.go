package rdf

// SetJSONLDDirect turns the direct conversion of JSON-LD node objects on or off and returns a
// function that restores it.
func SetJSONLDDirect(on bool) (restore func()) {
	old := jsonldDirect
	jsonldDirect = on
	return func() { jsonldDirect = old }
}
