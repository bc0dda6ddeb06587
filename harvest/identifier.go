package harvest

import (
	"fmt"
	"strings"
)

// IdentifierProblem is why a dataset of a catalog cannot be keyed by its identifier: the type
// and message of its error row.
type IdentifierProblem struct {
	Type    string // MissingIdentifier, InvalidIdentifier or DuplicateIdentifier
	Message string
	// Identifier is what the error row may name: the identifier, or "" when it has none or
	// holds what a database text column cannot store (U+0000).
	Identifier string
}

// CheckIdentifier applies the rules by which a harvest keys the dataset at pos (0-based) of a
// DCAT-US catalog by its identifier, as EXTRACT and the validate API both do. identifier and
// title are what was read of the dataset (title names it in messages; "" for none) and
// readErr why no usable identifier could be read (not an object; missing, blank, or neither
// a string nor an object with @id), whose message is kept as it is. seen maps the identifiers
// of the catalog's earlier datasets to the position of the first one using each; it is only
// read. It returns nil when identifier keys the dataset (the caller then adds it to seen), or
// the problem: MissingIdentifier (readErr), InvalidIdentifier (it holds U+0000, which a
// database text column cannot hold), or DuplicateIdentifier (an earlier dataset has it: the
// first one is kept, as Data.gov keeps it).
func CheckIdentifier(pos int, identifier, title string, readErr error, seen map[string]int) *IdentifierProblem {
	switch first, dup := seen[identifier]; {
	case readErr != nil:
		return &IdentifierProblem{Type: "MissingIdentifier", Message: readErr.Error()}
	case strings.ContainsRune(identifier, 0):
		titled := ""
		if title != "" {
			titled = fmt.Sprintf(" (title %q)", title)
		}
		return &IdentifierProblem{Type: "InvalidIdentifier", Message: fmt.Sprintf("dataset #%d%s: identifier %q "+
			"contains U+0000 (NUL), which a database text column cannot hold", pos+1, titled, identifier)}
	case dup:
		return &IdentifierProblem{Type: "DuplicateIdentifier", Identifier: identifier, Message: fmt.Sprintf(
			"dataset #%d repeats identifier %q of dataset #%d in this catalog; the first one is kept",
			pos+1, identifier, first+1)}
	}
	return nil
}
