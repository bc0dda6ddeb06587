package search

import (
	"fmt"
	"strings"
)

// MaxIndexName is the longest index name, in bytes: OpenSearch's 255 for an index, less the
// "-<unix nanoseconds>" (20 bytes) of the concrete indices behind an alias.
const MaxIndexName = 255 - 20

// CheckIndexName checks an index name (the OpenSearch alias, or the bleve index's directory)
// by one rule for both implementations, OpenSearch's for index names
// (https://opensearch.org/docs/2.19/api-reference/index-apis/create-index/#index-naming-restrictions):
// lower case; none of \ / * ? " < > | , # : or a space; not starting with _ - + or a dot (no
// hidden index, no "." or ".."); 1 to MaxIndexName bytes. The error is a sentence saying which
// part breaks the rule and what the rule is.
func CheckIndexName(name string) error {
	var why string
	switch {
	case name == "":
		why = "is empty"
	case len(name) > MaxIndexName:
		why = fmt.Sprintf("is %d bytes long", len(name))
	case strings.ToLower(name) != name:
		why = fmt.Sprintf("has upper case letters (%q would do)", strings.ToLower(name))
	case strings.ContainsAny(name, `\/*?"<>|,#: `):
		why = fmt.Sprintf("contains %q", name[strings.IndexAny(name, `\/*?"<>|,#: `)])
	case strings.IndexAny(name[:1], "_-+.") == 0:
		why = fmt.Sprintf("starts with %q", name[:1])
	default:
		return nil
	}
	return fmt.Errorf("search index name %q %s: an index name is lower case, at most %d bytes, without "+
		`\ / * ? " < > | , # : or spaces, and does not start with _ - + or . (OpenSearch's rule, kept for bleve too)`,
		name, why, MaxIndexName)
}
