package api

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

func recordNotFound(id string) string { return fmt.Sprintf("harvest record %q not found", id) }

// canonicalPathID passes the {id} of a request's path on in the canonical form both backends
// store ids in (a lower-case UUID with hyphens) when it is a UUID in any form, so that an id in
// upper case finds its row on SQLite as on Postgres. Any other id is left as it is: it names
// nothing, and the handler answers 404 in its usual order (after 415 and 422): every backend
// answers ErrNotFound for it, a NUL and bytes that are not UTF-8 included (storetest's
// Malformed/IDs), where Postgres used to fail with an error and the API with a 500.
func canonicalPathID(r *http.Request) {
	if raw := r.PathValue("id"); raw != "" {
		if id, ok := canonicalUUID(raw); ok {
			r.SetPathValue("id", id)
		}
	}
}

// canonicalUUID returns s as a lower-case hyphenated UUID when it is one in any form
// uuid.Parse reads (hyphenated, bare hex, braces, urn:uuid:).
func canonicalUUID(s string) (string, bool) {
	id, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return id.String(), true
}

// filterID is a list's id filter (source_id, organization_id): canonical when it is a UUID, as
// checkPathID makes path ids; any other text is kept and matches nothing.
func filterID(q query, name string) string {
	if id, ok := canonicalUUID(q[name]); ok {
		return id
	}
	return q[name]
}

// storableText says what is wrong with text that arrives in a request (a query parameter, a
// member of a body) and could reach the store: a NUL, which no Postgres text column holds, or
// bytes that are not UTF-8 (RFC 3986 §2.5 leaves percent-encoded bytes to the application;
// ours are UTF-8 text). "" when it is fine.
func storableText(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "is not UTF-8 text"
	case strings.ContainsRune(s, 0):
		return "must not contain U+0000 (NUL)"
	}
	return ""
}
