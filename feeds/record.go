package feeds

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Record is a stored DCAT-US record (store.Dataset.DCAT) read for display, leniently: records
// are kept as harvested, and a field may have another shape than the schema says (a keyword
// that is one string, a distribution that is one object, a title that is a number, null). Its
// readers give what is there in the shape the caller wants and never fail.
type Record map[string]any

// ParseRecord reads raw as a Record; anything but a JSON object is an empty Record.
func ParseRecord(raw []byte) Record {
	var r Record
	if json.Unmarshal(raw, &r) != nil || r == nil {
		return Record{}
	}
	return r
}

// Text is the field as one line of text: a string as it is; a number or boolean as JSON
// writes it; an object by its name (name, fn, title, label, prefLabel, @value, @id, in that
// order); a list as its items' texts joined by ", "; null or missing as "".
func (r Record) Text(key string) string { return textOf(r[key]) }

// Texts is the field as a list of texts: each item of a list (by Text's rules, empty ones
// left out), or a one-item list of a field that is not a list. A string is one item, not a
// comma-separated list: a lying keyword "a,b" stays as harvested.
func (r Record) Texts(key string) []string {
	var out []string
	for _, v := range listOf(r[key]) {
		if s := textOf(v); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Objects is the field as a list of objects: each object item of a list, or the field itself
// when it is one object; items of other shapes are left out.
func (r Record) Objects(key string) []Record {
	var out []Record
	for _, v := range listOf(r[key]) {
		if m, ok := v.(map[string]any); ok {
			out = append(out, Record(m))
		}
	}
	return out
}

// Object is the field when it is an object (the first object of a list), else nil.
func (r Record) Object(key string) Record {
	if os := r.Objects(key); len(os) > 0 {
		return os[0]
	}
	return nil
}

func listOf(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	}
	return []any{v}
}

func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		var parts []string
		for _, e := range x {
			if s := textOf(e); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		for _, k := range []string{"name", "fn", "title", "label", "prefLabel", "@value", "@id"} {
			if s := textOf(x[k]); s != "" {
				return s
			}
		}
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// IsWebURL reports whether s is an absolute http or https URL with a host: what a page may
// link to and what schema.org's URL-valued properties take.
func IsWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Email is a DCAT-US hasEmail ("mailto:x@y" or "x@y") without its mailto: scheme.
func Email(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 7 && strings.EqualFold(s[:7], "mailto:") {
		return s[7:]
	}
	return s
}
