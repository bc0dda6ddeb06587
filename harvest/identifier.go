package harvest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxIdentifierBytes is the longest identifier, in bytes, a dataset may have (CheckIdentifier:
// a longer one, such as a 200 MB RDF IRI, is an IdentifierTooLong error row), and the most of
// an identifier an error row keeps (ClipIdentifier): 2,048, the longest URL every browser and
// server takes.
const MaxIdentifierBytes = 2048

// MaxKeptIdentifierBytes is the longest identifier that an IdentifierTooLong record still counts
// as seen by, so that a dataset stored under it before MaxIdentifierBytes was the cap is kept:
// below the 2,704 bytes of a Postgres btree entry (harvest_job_identifier's key), which no
// stored identifier can pass. A longer one is not saved as seen; no dataset can have it.
const MaxKeptIdentifierBytes = 2600

// ClipIdentifier is what an error row stores of identifier id: id itself when it is at most
// MaxIdentifierBytes long, else its first bytes (cut at a UTF-8 character boundary, at most
// MaxIdentifierBytes) followed by "…(N bytes)", N being len(id). Every store backend applies it
// to the identifier of each error row it writes, so the record_errors API and the web job page
// never serve more than about MaxIdentifierBytes per identifier.
func ClipIdentifier(id string) string {
	if len(id) <= MaxIdentifierBytes {
		return id
	}
	cut := MaxIdentifierBytes
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes)", id[:cut], len(id))
}

// IdentifierProblem is why a dataset of a catalog cannot be keyed by its identifier: the type
// and message of its error row.
type IdentifierProblem struct {
	Type    string // MissingIdentifier, InvalidIdentifier, IdentifierTooLong or DuplicateIdentifier
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
// database text column cannot hold), IdentifierTooLong (over MaxIdentifierBytes; the problem
// names it clipped, ClipIdentifier), or DuplicateIdentifier (an earlier dataset has it: the
// first one is kept, as Data.gov keeps it).
func CheckIdentifier(pos int, identifier, title string, readErr error, seen map[string]int) *IdentifierProblem {
	return CheckIdentifierWith(pos, identifier, title, readErr, func(id string) (int, bool) {
		first, dup := seen[id]
		return first, dup
	})
}

// CheckIdentifierWith is CheckIdentifier with the earlier datasets' identifiers behind
// firstAt, which returns the position of the first dataset using an identifier and whether
// one did (EXTRACT keeps a DCAT-US listing's identifiers as hashes, not in a map).
func CheckIdentifierWith(pos int, identifier, title string, readErr error, firstAt func(identifier string) (int, bool)) *IdentifierProblem {
	switch first, dup := firstAt(identifier); {
	case readErr != nil:
		return &IdentifierProblem{Type: TypeMissingIdentifier, Message: readErr.Error()}
	case len(identifier) > MaxIdentifierBytes:
		return &IdentifierProblem{Type: TypeIdentifierTooLong, Identifier: ClipIdentifier(identifier),
			Message: IdentifierTooLongMessage(pos, title, int64(len(identifier)))}
	case strings.ContainsRune(identifier, 0):
		titled := titledOf(title)
		return &IdentifierProblem{Type: TypeInvalidIdentifier, Message: fmt.Sprintf("dataset #%d%s: identifier %q "+
			"contains U+0000 (NUL), which a database text column cannot hold", pos+1, titled, identifier)}
	case dup:
		return &IdentifierProblem{Type: TypeDuplicateIdentifier, Identifier: identifier, Message: fmt.Sprintf(
			"dataset #%d repeats identifier %q of dataset #%d in this catalog; the first one is kept",
			pos+1, identifier, first+1)}
	}
	return nil
}

// IdentifierTooLongMessage is the message of the IdentifierTooLong row of the dataset at pos
// (0-based) titled title ("" for none) whose identifier is size bytes long (over
// MaxIdentifierBytes): a reader that keeps only the first bytes of a long identifier names its
// real length with it.
func IdentifierTooLongMessage(pos int, title string, size int64) string {
	return fmt.Sprintf("dataset #%d%s: its identifier is %d bytes long, over the identifier cap of %d bytes",
		pos+1, titledOf(title), size, MaxIdentifierBytes)
}

// titledOf names a dataset's title in a message: ` (title "T")`, or "" for none.
func titledOf(title string) string {
	if title == "" {
		return ""
	}
	return fmt.Sprintf(" (title %q)", title)
}
