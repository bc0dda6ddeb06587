package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Record types of a DCAT-US 3.0 catalog, as Entry.RecordType names them (the same words as
// harvest.RecordType*: Data.gov H2.0's harvest_record.record_type).
const (
	RecordTypeDataset       = "dataset"
	RecordTypeDataService   = "dataservice"
	RecordTypeCatalogRecord = "catalogrecord"
	RecordTypeDatasetSeries = "datasetseries"
)

// recordTypes maps a DCAT-US 3.0 catalog's record arrays to the type of their records, and
// recordWords names each type in messages.
var (
	recordTypes = map[string]string{"dataset": RecordTypeDataset, "service": RecordTypeDataService,
		"record": RecordTypeCatalogRecord, "datasetSeries": RecordTypeDatasetSeries}
	recordWords = map[string]string{RecordTypeDataset: "dataset", RecordTypeDataService: "data service",
		RecordTypeCatalogRecord: "catalog record", RecordTypeDatasetSeries: "dataset series"}
)

// Links3 are what the first pass over a DCAT-US 3.0 catalog ([Check3]) learnt of the datasets
// that DataServices (servesDataset) and DatasetSeries (seriesMember, first, last) embed, for
// [WalkEntries3] to lift them out. It holds identifiers only: memory grows with the number of
// embedded datasets, never with their size.
type Links3 struct {
	parent  map[string]string // embedded dataset identifier -> the identifier of its first parent
	alsoTop map[string]bool   // embedded identifiers that a catalog's "dataset" array lists too
}

// Check3 reads the DCAT-US 3.0 catalog document in r once, keeping no record, to find what is
// wrong with it (a *ParseError as for [Check]; ErrDCATUS11 when its conformsTo is a string, the
// DCAT-US 1.1 way) and to learn which datasets are embedded in which parent, for
// [WalkEntries3]. A DataService or DatasetSeries over DefaultMaxRecordBytes is not held, so
// the datasets it embeds are not lifted out.
func Check3(r io.Reader) (*Links3, error) {
	l := &Links3{parent: map[string]string{}}
	top := map[string]bool{}
	err := walkDocument3(r, 0, DefaultMaxRecordBytes, newShapeGuard(nil, false), func(_ int, el *element) error {
		switch el.kind {
		case "dataset":
			var d keyFields
			d.Identifier = el.identifier
			if el.raw != nil { // an empty element only
				_ = json.Unmarshal(el.raw, &d)
			}
			if id, _ := identifier3(d.Identifier); id != "" {
				top[id] = true
			}
		case "service", "datasetSeries":
			if el.raw == nil || el.structure != nil {
				return nil
			}
			var f fields3
			if json.Unmarshal(el.raw, &f) != nil {
				return nil
			}
			parent := f.parentID(recordTypes[el.kind])
			for _, emb := range f.embedded(recordTypes[el.kind]) {
				var d keyFields
				if json.Unmarshal(emb.raw, &d) != nil {
					continue
				}
				if id, _ := identifier3(d.Identifier); id != "" {
					if _, dup := l.parent[id]; !dup {
						l.parent[id] = parent
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for id := range l.parent {
		if top[id] {
			if l.alsoTop == nil {
				l.alsoTop = map[string]bool{}
			}
			l.alsoTop[id] = true
		}
	}
	return l, nil
}

// WalkEntries3 walks the DCAT-US 3.0 catalog document in r as [WalkEntries] walks a DCAT-US 1.1
// one, calling fn with one Entry per record, in document order, with Data.gov H2.0's rules:
//
//   - the records are the elements of the "dataset", "service" (DataService), "record"
//     (CatalogRecord) and "datasetSeries" arrays of the catalog and, recursively, of every
//     catalog in its "catalog" array, each with its RecordType and JSON Path;
//   - a dataset embedded as an object in a DataService's servesDataset or a DatasetSeries's
//     seriesMember, first or last is lifted out as a record of its own, right after its parent,
//     with IsPartOf the parent's identifier; a parent names each identifier once (a series's
//     first is usually one of its members too). A lifted dataset that a "dataset" array lists
//     too is not lifted: the listed copy is the record, with IsPartOf from its first parent
//     (links, from [Check3]);
//   - a Dataset or DataService is keyed by its identifier: a string, or the "@id" of an
//     Identifier object, else its "notation"; a DatasetSeries by its "@id"; a CatalogRecord by
//     its "@id", else by urn:datagov:catalogrecord:<hex sha256 of "primaryTopic|modified">, as
//     H2.0 synthesizes it (a member missing is written None, as Python formats it).
//
// A parent over limit bytes is one TooLarge entry and its datasets are not lifted; limit, Raw,
// TooLarge and Structure are as for WalkEntries. The parent's Raw is the record as written,
// embedded datasets included.
func WalkEntries3(r io.Reader, limit int, links *Links3, fn func(e Entry) error) error {
	if links == nil {
		links = &Links3{}
	}
	pos := 0
	return walkDocument3(r, limit, 0, newShapeGuard(nil, true), func(_ int, el *element) error {
		rt := recordTypes[el.kind]
		e := entry3(pos, rt, el.path, el.raw)
		if el.raw == nil {
			var f fields3
			f.Identifier = el.identifier
			if el.title != nil {
				_ = json.Unmarshal(el.title, &f.Title)
			}
			e = f.entry(pos, rt, el.path, nil)
			e.TooLarge, e.Size = true, el.size
		}
		e.Structure = el.structure
		if rt == RecordTypeDataset && e.Identifier != "" {
			e.IsPartOf = links.parent[e.Identifier] // set only for one that a parent embeds too
		}
		pos++
		if err := fn(e); err != nil {
			return err
		}
		if el.raw == nil || el.structure != nil || (rt != RecordTypeDataService && rt != RecordTypeDatasetSeries) {
			return nil
		}
		var f fields3
		if json.Unmarshal(el.raw, &f) != nil {
			return nil
		}
		parent := f.parentID(rt)
		named := map[string]bool{}
		for _, emb := range f.embedded(rt) {
			c := entry3(pos, RecordTypeDataset, el.path+emb.path, bytes.Clone(emb.raw))
			if c.Identifier != "" && (named[c.Identifier] || links.alsoTop[c.Identifier]) {
				continue
			}
			named[c.Identifier] = true
			c.IsPartOf = parent
			pos++
			if err := fn(c); err != nil {
				return err
			}
		}
		return nil
	})
}

// fields3 are the members of a DCAT-US 3.0 record that key it and link it to others.
type fields3 struct {
	ID            json.RawMessage `json:"@id"`
	Identifier    json.RawMessage `json:"identifier"`
	Title         any             `json:"title"`
	PrimaryTopic  any             `json:"primaryTopic"`
	Modified      any             `json:"modified"`
	ServesDataset json.RawMessage `json:"servesDataset"`
	SeriesMember  json.RawMessage `json:"seriesMember"`
	First         json.RawMessage `json:"first"`
	Last          json.RawMessage `json:"last"`
}

// entry3 identifies the record raw of type rt at pos and path.
func entry3(pos int, rt, path string, raw json.RawMessage) Entry {
	var f fields3
	if err := json.Unmarshal(raw, &f); err != nil {
		e := Entry{Position: pos, Raw: raw, RecordType: rt, Path: path}
		what := "not a JSON object"
		if len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '{' {
			what = err.Error()
		}
		e.Err = fmt.Errorf("%s #%d at %s: %s", recordWords[rt], pos+1, path, what)
		return e
	}
	return f.entry(pos, rt, path, raw)
}

// entry keys the record of type rt whose members are f.
func (f *fields3) entry(pos int, rt, path string, raw json.RawMessage) Entry {
	e := Entry{Position: pos, Raw: raw, RecordType: rt, Path: path}
	e.Title, _ = f.Title.(string)
	var why string
	switch rt {
	case RecordTypeDataset, RecordTypeDataService:
		e.Identifier, why = identifier3(f.Identifier)
	case RecordTypeCatalogRecord:
		if e.Identifier, _ = identifier3(f.ID); e.Identifier == "" {
			e.Identifier = SynthesizedRecordID(f.PrimaryTopic, f.Modified)
		}
	case RecordTypeDatasetSeries:
		if e.Identifier, _ = identifier3(f.ID); e.Identifier == "" {
			why = `has no "@id" (missing or blank)`
		}
	}
	if e.Identifier == "" {
		e.Err = fmt.Errorf("%s #%d at %s%s %s", recordWords[rt], pos+1, path, e.titled(), why)
	}
	return e
}

// parentID is the identifier a record of type rt gives the datasets it embeds.
func (f *fields3) parentID(rt string) string {
	var id string
	if rt == RecordTypeDatasetSeries {
		id, _ = identifier3(f.ID)
	} else {
		id, _ = identifier3(f.Identifier)
	}
	return id
}

// embeddedDataset is a dataset object inside a parent record, at path from the parent.
type embeddedDataset struct {
	raw  json.RawMessage
	path string
}

// embedded returns the dataset objects that the record of type rt embeds, in member order
// (servesDataset; seriesMember, first, last), each an object or an array of them.
func (f *fields3) embedded(rt string) []embeddedDataset {
	var out []embeddedDataset
	add := func(name string, v json.RawMessage) {
		v = bytes.TrimSpace(v)
		switch {
		case len(v) > 0 && v[0] == '{':
			out = append(out, embeddedDataset{raw: v, path: "." + name})
		case len(v) > 0 && v[0] == '[':
			var items []json.RawMessage
			if json.Unmarshal(v, &items) != nil {
				return
			}
			for i, item := range items {
				if item = bytes.TrimSpace(item); len(item) > 0 && item[0] == '{' {
					out = append(out, embeddedDataset{raw: item, path: fmt.Sprintf(".%s[%d]", name, i)})
				}
			}
		}
	}
	if rt == RecordTypeDataService {
		add("servesDataset", f.ServesDataset)
	} else {
		add("seriesMember", f.SeriesMember)
		add("first", f.First)
		add("last", f.Last)
	}
	return out
}

// identifier3 reads a DCAT-US 3.0 identifier value: a non-blank string (verbatim), or an
// Identifier object's non-blank "@id", else its non-blank "notation". Otherwise it returns ""
// and why, to follow the record's name in a message.
func identifier3(raw json.RawMessage) (string, string) {
	var v any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &v)
	}
	switch v := v.(type) {
	case string:
		if strings.TrimSpace(v) != "" {
			return v, ""
		}
	case map[string]any:
		for _, k := range []string{"@id", "notation"} {
			if s, ok := v[k].(string); ok && strings.TrimSpace(s) != "" {
				return s, ""
			}
		}
		return "", `has an Identifier object with no usable "@id" or "notation"`
	case nil:
	default:
		return "", fmt.Sprintf("has an identifier that is neither a string nor an Identifier object: %s",
			strings.TrimSpace(string(raw)))
	}
	return "", "has no identifier (missing or blank)"
}

// SynthesizedRecordID is the identifier Data.gov H2.0 gives a CatalogRecord without "@id":
// "urn:datagov:catalogrecord:" and the hex SHA-256 of primaryTopic + "|" + modified, each as
// Python's str() writes it (a string as is, a missing or null member "None").
func SynthesizedRecordID(primaryTopic, modified any) string {
	sum := sha256.Sum256([]byte(pyStr(primaryTopic) + "|" + pyStr(modified)))
	return "urn:datagov:catalogrecord:" + hex.EncodeToString(sum[:])
}

// pyStr writes a decoded JSON value as Python's str() writes the value json.loads makes of it,
// for strings, None, booleans and numbers; objects and arrays are written as compact JSON.
func pyStr(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case string:
		return v
	case bool:
		if v {
			return "True"
		}
		return "False"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// catalogs walks the value of a DCAT-US 3.0 catalog's "catalog" member, at path at: an array
// of catalog objects, each walked as the document's own (null is none).
func (w *catalogWalk) catalogs(at string) error {
	s := w.s
	c, err := s.next()
	if err != nil {
		return err
	}
	if c == 'n' {
		return s.valueFrom(c, nil)
	}
	if c != '[' {
		if err := s.valueFrom(c, nil); err != nil {
			return err
		}
		return &ParseError{Err: fmt.Errorf(`not a DCAT-US 3.0 catalog: "catalog" at %s is a JSON %s, not an array`, at, kind(c))}
	}
	if empty, err := s.openArray(); err != nil || empty {
		return err
	}
	for i := 0; ; i++ {
		if c, err = s.next(); err != nil {
			return err
		}
		if c != '{' {
			if err := s.valueFrom(c, nil); err != nil {
				return err
			}
			return &ParseError{Err: fmt.Errorf(`not a DCAT-US 3.0 catalog: %s.catalog[%d] is a JSON %s, not a catalog object`,
				at, i, kind(c))}
		}
		if err := s.nest('{'); err != nil {
			return err
		}
		if _, err := w.members(fmt.Sprintf("%s.catalog[%d]", at, i)); err != nil {
			return err
		}
		s.depth--
		if end, err := s.afterElement(); err != nil || end {
			return err
		}
	}
}

// refuseDCATUS11 scans a DCAT-US 3.0 catalog's conformsTo and returns a *ParseError wrapping
// ErrDCATUS11 when it is a string, DCAT-US 1.1's way (3.0 writes a Standard object).
func (w *catalogWalk) refuseDCATUS11() error {
	c, cp, err := w.conformsTo()
	if err != nil || c != '"' {
		return err
	}
	return &ParseError{Err: fmt.Errorf("%w (conformsTo %s)", ErrDCATUS11, cp.buf[:min(len(cp.buf), 200)])}
}
