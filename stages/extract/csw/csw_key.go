package csw

import (
	"crypto/sha256"
	"encoding/xml"
	"strings"

	"github.com/harvester-dev/harvester/stages/extract"
)

// A CSW record's key, its harvest identifier, is read while the record streams past
// (readCSWPage), from the elements keyFields names for its root element:
//
//   - ISO 19139 (gmd:MD_Metadata, gmi:MI_Metadata): gmd:fileIdentifier/gco:CharacterString;
//   - Dublin Core (csw:Record, SummaryRecord, BriefRecord): the first dc:identifier;
//   - FGDC CSDGM (metadata): idinfo/datasetid, the identifier a CSW server gives the record
//     (pycsw writes its record identifier there); else the first idinfo/citation/citeinfo/onlink
//     that is not a distribution: not a distribution's network address
//     (distinfo/stdorder/digform/digtopt/onlinopt/computer/networka/networkr) and not typed
//     with a protocol (pycsw writes each of a record's links as an onlink with a type
//     attribute, "WWW:DOWNLOAD-1.0-http--download"). A download URL changes with the files a
//     publisher serves; the citation's own page, or the server's id, does not.
//
// Each kept value is at most extract.MaxKeyBytes (its full length is kept beside it); an FGDC record
// keeps at most maxKeyValues onlinks and the hashes of at most maxNetworkAddresses network
// addresses, so a record of a million links costs a bounded few kilobytes.

// Bounds of what a record's key fields keep.
const (
	maxKeyValues        = 64
	maxNetworkAddresses = 10_000
)

// keyField is an element below a record's root whose text the reader keeps.
type keyField struct {
	path   []string // local names below the root
	ns     string   // the namespace URI of its last element ("" any)
	all    bool     // every non-empty occurrence (at most maxKeyValues), else the first
	typed  string   // an attribute that, when an occurrence carries it, marks it (keyValue.typed)
	hashed bool     // only the SHA-256 of each occurrence is kept (keyRead.has)
}

// keyFields are the key fields of a record whose root element is root (see above); none for
// a root the harvest does not know.
func keyFields(root string) []keyField {
	switch root {
	case "MD_Metadata", "MI_Metadata":
		return []keyField{{path: []string{"fileIdentifier", "CharacterString"}}}
	case "Record", "SummaryRecord", "BriefRecord":
		return []keyField{{path: []string{"identifier"}, ns: dcNS}}
	case "metadata": // FGDC CSDGM
		return []keyField{
			{path: []string{"idinfo", "datasetid"}},
			{path: []string{"idinfo", "citation", "citeinfo", "onlink"}, all: true, typed: "type"},
			{path: []string{"distinfo", "stdorder", "digform", "digtopt", "onlinopt", "computer", "networka", "networkr"},
				all: true, hashed: true},
		}
	}
	return nil
}

// keyValue is one occurrence of a key field.
type keyValue struct {
	text  string // its first extract.MaxKeyBytes bytes, white space around them trimmed
	size  int64  // its length in bytes, as served
	typed bool   // it carries keyField.typed
}

// keyRead is one key field of the record being read.
type keyRead struct {
	keyField
	vals   []keyValue
	hashes map[[sha256.Size]byte]bool
	done   bool // the first occurrence is read (a field of one value)
	in     bool // an occurrence is being read
	cur    strings.Builder
	size   int64
	typed  bool
}

// at reports whether path (the elements below the root, the last just started) is the field's.
func (k *keyRead) at(path []xml.Name) bool {
	if len(path) != len(k.path) || (k.ns != "" && path[len(path)-1].Space != k.ns) {
		return false
	}
	for i, n := range path {
		if n.Local != k.path[i] {
			return false
		}
	}
	return true
}

// start begins an occurrence at the element t, when path is the field's and it wants more.
func (k *keyRead) start(path []xml.Name, t *xml.StartElement) {
	if k.done || !k.at(path) {
		return
	}
	k.in, k.size, k.typed = true, 0, k.keyField.typed != "" && attr(t, k.keyField.typed) != ""
	k.cur.Reset()
}

// text adds character data read at depth (the number of elements below the root) to the
// occurrence being read: its own text, not that of an element inside it.
func (k *keyRead) text(depth int, t []byte) {
	if !k.in || depth != len(k.path) {
		return
	}
	k.size += int64(len(t))
	k.cur.Write(t[:min(len(t), extract.MaxKeyBytes-k.cur.Len())])
}

// end ends the occurrence whose element ends at depth, keeping it when it is not empty.
func (k *keyRead) end(depth int) {
	if !k.in || depth != len(k.path) {
		return
	}
	k.in = false
	v := strings.TrimSpace(k.cur.String())
	switch {
	case v == "":
	case k.hashed:
		if k.hashes == nil {
			k.hashes = map[[sha256.Size]byte]bool{}
		}
		if len(k.hashes) < maxNetworkAddresses {
			k.hashes[sha256.Sum256([]byte(v))] = true
		}
	default:
		k.vals = append(k.vals, keyValue{text: v, size: k.size, typed: k.typed})
		k.done = !k.all || len(k.vals) >= maxKeyValues
	}
}

// has reports whether a hashed field had the occurrence v.
func (k *keyRead) has(v string) bool { return k.hashes[sha256.Sum256([]byte(v))] }

// recordKey returns the record's identifier by the rules above ("" when it has none) and its length
// in bytes as served when more than extract.MaxKeyBytes of it were kept, else 0.
func recordKey(root string, keys []*keyRead) (string, int64) {
	var v *keyValue
	switch {
	case root == "metadata" && len(keys) == 3:
		if len(keys[0].vals) > 0 {
			v = &keys[0].vals[0]
			break
		}
		for i := range keys[1].vals {
			if o := &keys[1].vals[i]; !o.typed && !keys[2].has(o.text) {
				v = o
				break
			}
		}
	case len(keys) > 0 && len(keys[0].vals) > 0:
		v = &keys[0].vals[0]
	}
	if v == nil {
		return "", 0
	}
	if v.size > extract.MaxKeyBytes {
		return v.text, v.size
	}
	return v.text, 0
}
