package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Entry is one element of a catalog's dataset array. Messages number datasets from 1 ("dataset
// #1" is the first element), as a person reading the file counts them; Position is 0-based.
type Entry struct {
	Position   int
	Identifier string          // verbatim (never trimmed); empty when Err is set
	Title      string          // for error messages about records without an identifier
	Raw        json.RawMessage // the element exactly as the publisher wrote it; nil when TooLarge
	Err        error           // why the element cannot be keyed: not an object, missing or blank identifier
	// TooLarge is set for an element over the walk's size limit, which is not kept: Size is its
	// length in bytes, and Identifier and Title come from its members, read as it was scanned.
	TooLarge bool
	Size     int64
	// Structure is set when the element repeats a key or nests deeper than MaxRecordDepth
	// (WalkEntries only); Raw is then what the scanner read, a deep value replaced by 0.
	Structure *StructureError
	// RecordType, Path and IsPartOf are set by WalkEntries3 only: the DCAT-US 3.0 record type
	// (RecordTypeDataset and so on), the JSON path of the record in the document (e.g.
	// "$.catalog[0].dataset[1]", "$.service[0].servesDataset[0]"), and the identifier of the
	// DataService or DatasetSeries that embeds the dataset ("" for none).
	RecordType, Path, IsPartOf string
}

// Identify fills in an entry's identifier: the "identifier" string, or the "@id" of an
// identifier object (DCAT-US 3.0). Missing, blank or other shapes are an error.
func Identify(pos int, raw json.RawMessage) Entry {
	var d keyFields
	return identify(pos, raw, &d, json.Unmarshal(raw, &d))
}

// keyFields are the members of a dataset that identify it.
type keyFields struct {
	Identifier json.RawMessage `json:"identifier"`
	Title      any             `json:"title"`
}

// identify is Identify of raw, given its keyFields d as decoded and the decoding's error.
func identify(pos int, raw json.RawMessage, d *keyFields, err error) Entry {
	e := Entry{Position: pos, Raw: raw}
	if err != nil {
		var kindErr *json.UnmarshalTypeError
		if errors.As(err, &kindErr) && kindErr.Field == "" {
			e.Err = fmt.Errorf("dataset #%d is a JSON %s, not an object", pos+1, kindErr.Value)
			return e
		}
		// A field of the wrong type elsewhere does not matter here; look at identifier alone.
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			e.Err = fmt.Errorf("dataset #%d: %v", pos+1, err)
			return e
		}
		d.Identifier = m["identifier"]
	}
	e.Title, _ = d.Title.(string)
	var id any
	if len(d.Identifier) > 0 {
		_ = json.Unmarshal(d.Identifier, &id)
	}
	switch v := id.(type) {
	case string:
		e.Identifier = v
	case map[string]any:
		e.Identifier, _ = v["@id"].(string)
	case nil:
	default:
		e.Err = fmt.Errorf("dataset #%d%s: identifier must be a string or an object with @id, not %s",
			pos+1, e.titled(), strings.TrimSpace(string(d.Identifier)))
		return e
	}
	if strings.TrimSpace(e.Identifier) == "" {
		e.Identifier = ""
		e.Err = fmt.Errorf("dataset #%d%s has no identifier (missing or blank)", pos+1, e.titled())
	}
	return e
}

func (e *Entry) titled() string {
	if e.Title == "" {
		return ""
	}
	return fmt.Sprintf(" (title %q)", e.Title)
}

// Named names the entry in a message, to follow "dataset #N": ` (identifier "…")` with its
// identifier cut to 256 bytes, else ` (title "…")`, else "".
func (e *Entry) Named() string {
	if e.Identifier == "" {
		return e.titled()
	}
	id := e.Identifier
	if len(id) > 256 {
		cut := 256
		for cut > 0 && !utf8.RuneStart(id[cut]) {
			cut--
		}
		id = id[:cut] + "…"
	}
	return fmt.Sprintf(" (identifier %q)", id)
}
