package catalog

import (
	"encoding/json"
	"io"
)

// Check walks the catalog document in r as WalkCatalog does, only to find what is wrong
// with it: no record is kept. Unlike WalkCatalog, it refuses a DCAT-US 3.0 catalog
// (ErrDCATUS3): a job reads DCAT-US 1.1 only.
func Check(r io.Reader) error {
	return walkDocument(r, 0, newShapeGuard(nil, false), true, func(int, *element) error { return nil })
}

// WalkEntries walks the catalog document in r as WalkCatalog does, calling fn with each element
// identified (Identify), decoded once into its keyFields. An element larger than limit bytes is
// never held: its Entry has TooLarge set, its Size, no Raw, and the identifier and title read
// from its members while it was scanned. An element that repeats a key or nests too deeply has
// Entry.Structure set. fn may keep the Entry.
func WalkEntries(r io.Reader, limit int, fn func(e Entry) error) error {
	return walkDocument(r, limit, newShapeGuard(nil, true), false, func(pos int, el *element) error {
		var d keyFields
		if el.raw != nil {
			e := identify(pos, el.raw, &d, decodeKeyFields(el.raw, &d))
			e.Structure = el.structure
			return fn(e)
		}
		d.Identifier = el.identifier
		if el.title != nil {
			_ = json.Unmarshal(el.title, &d.Title)
		}
		e := identify(pos, nil, &d, nil)
		e.TooLarge, e.Size, e.Structure = true, el.size, el.structure
		return fn(e)
	})
}
