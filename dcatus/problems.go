package dcatus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// defLabels names the schema's $defs that stand for one kind of value, so a
// failure inside them reads "… is not a valid <label>" instead of quoting a
// long regular expression. The keys must match the $defs of both schemas.
var defLabels = map[string]string{
	"redacted":             "[[REDACTED…]] marker",
	"uri":                  "uri",
	"isoDate":              "ISO 8601 date",
	"isoDuration":          "ISO 8601 duration",
	"isoDateDuration":      "ISO 8601 date/duration interval",
	"isoDateInterval":      "ISO 8601 date/date interval",
	"isoDurationDate":      "ISO 8601 duration/date interval",
	"isoRepeatingDuration": "ISO 8601 repeating duration (R/P…)",
	"mediaType":            "media type (type/subtype)",
	"languageTag":          "BCP 47 language tag",
	"bureauCode":           "bureau code (NNN:NN)",
	"programCode":          "program code (NNN:NNN)",
	"uii":                  "IT investment UII (NNN-NNNNNNNNN)",
	"mailto":               "mailto: email address",
}

// printer renders library messages for kinds this file does not phrase itself.
var printer = message.NewPrinter(language.English)

// maxShownValue is how many characters of a value a message quotes.
const maxShownValue = 80

// finding is one reduced failure before grouping by path.
type finding struct {
	loc []string // instance location tokens
	msg string
}

// shaper reduces one validation error tree of one record.
type shaper struct {
	instance any
	found    []finding
}

// shapeProblems turns the library's error tree into one Problem per JSON
// path, sorted by path.
func shapeProblems(verr *jsonschema.ValidationError, instance any) []Problem {
	s := &shaper{instance: instance}
	s.collect(verr)

	type group struct {
		path     string
		segments []segment
		msgs     []string
	}
	byPath := map[string]*group{}
	var groups []*group
	for _, f := range s.found {
		segs := s.segments(f.loc)
		path := renderPath(segs)
		g, ok := byPath[path]
		if !ok {
			g = &group{path: path, segments: segs}
			byPath[path] = g
			groups = append(groups, g)
		}
		if !slices.Contains(g.msgs, f.msg) {
			g.msgs = append(g.msgs, f.msg)
		}
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return compareSegments(a.segments, b.segments) })

	problems := make([]Problem, 0, len(groups))
	for _, g := range groups {
		problems = append(problems, Problem{Path: g.path, Message: strings.Join(g.msgs, "; ")})
	}
	return problems
}

// collect walks an error, reducing every anyOf/oneOf to its most specific
// cause, and records the resulting findings.
func (s *shaper) collect(e *jsonschema.ValidationError) {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			s.collect(c)
		}
	case *kind.AnyOf:
		s.collectAlternatives(e)
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			s.collectAlternatives(e)
		} else {
			s.add(e.InstanceLocation, fmt.Sprintf("%s matches more than one of the allowed forms", s.show(e.InstanceLocation)))
		}
	default:
		s.add(e.InstanceLocation, s.message(e))
	}
}

func (s *shaper) add(loc []string, msg string) {
	s.found = append(s.found, finding{loc: loc, msg: msg})
}

// collectAlternatives reduces an anyOf (or oneOf with no match) whose every
// alternative failed. Alternatives that only failed because the value has
// another JSON type, and the [[REDACTED…]] escape hatch, are not what the
// author meant; of the rest, the one whose failure lies deepest in the value
// wins (the first on a tie). When several of them fail on the value itself,
// one finding lists the acceptable forms.
func (s *shaper) collectAlternatives(e *jsonschema.ValidationError) {
	var typeMismatch, substantive []*jsonschema.ValidationError
	for _, alt := range e.Causes {
		switch {
		case isRedacted(alt):
		case isTypeMismatch(alt, len(e.InstanceLocation)):
			typeMismatch = append(typeMismatch, alt)
		default:
			substantive = append(substantive, alt)
		}
	}

	switch len(substantive) {
	case 0:
		var want []string
		for _, alt := range typeMismatch {
			for _, l := range leaves(alt) {
				for _, t := range l.ErrorKind.(*kind.Type).Want {
					if !slices.Contains(want, t) {
						want = append(want, t)
					}
				}
			}
		}
		if len(want) == 0 { // only [[REDACTED…]] alternatives
			for _, c := range e.Causes {
				s.collect(c)
			}
			return
		}
		s.add(e.InstanceLocation, fmt.Sprintf("%s is not of type %s", s.show(e.InstanceLocation), joinOr(quoteAll(want))))
		return
	case 1:
		s.collect(substantive[0])
		return
	}

	best, bestDepth := substantive[0], depth(substantive[0])
	for _, alt := range substantive[1:] {
		if d := depth(alt); d > bestDepth {
			best, bestDepth = alt, d
		}
	}
	if bestDepth > len(e.InstanceLocation) {
		s.collect(best)
		return
	}
	var labels []string
	for _, alt := range substantive {
		if l := s.label(alt); !slices.Contains(labels, l) {
			labels = append(labels, l)
		}
	}
	s.add(e.InstanceLocation, fmt.Sprintf("%s does not match any of the acceptable formats: %s",
		s.show(e.InstanceLocation), strings.Join(labels, ", ")))
}

// message phrases one leaf failure as a sentence about the value at its
// location.
func (s *shaper) message(e *jsonschema.ValidationError) string {
	val := s.show(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		if len(k.Missing) == 1 {
			return fmt.Sprintf("'%s' is a required property", k.Missing[0])
		}
		return fmt.Sprintf("%s are required properties", joinAnd(quoteAll(k.Missing)))
	case *kind.DependentRequired:
		return fmt.Sprintf("%s must be present when '%s' is", joinAnd(quoteAll(k.Missing)), k.Prop)
	case *kind.Type:
		return fmt.Sprintf("%s is not of type %s", val, joinOr(quoteAll(k.Want)))
	case *kind.Format:
		return fmt.Sprintf("%s is not a valid %s", val, k.Want)
	case *kind.Pattern:
		if l, ok := defLabel(e.SchemaURL); ok {
			return fmt.Sprintf("%s is not a valid %s", val, l)
		}
		return fmt.Sprintf("%s does not match pattern '%s'", val, k.Want)
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, showValue(w))
		}
		return fmt.Sprintf("%s is not one of %s", val, strings.Join(want, ", "))
	case *kind.Const:
		return fmt.Sprintf("%s should be %s", val, showValue(k.Want))
	case *kind.MinLength:
		if k.Got == 0 {
			return fmt.Sprintf("%s should be non-empty", val)
		}
		return fmt.Sprintf("%s is shorter than %d characters", val, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("%s is longer than %d characters (%d)", val, k.Want, k.Got)
	case *kind.MinItems:
		if k.Got == 0 {
			return fmt.Sprintf("%s should be non-empty", val)
		}
		return fmt.Sprintf("%s has fewer than %d items", val, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("%s has more than %d items (%d)", val, k.Want, k.Got)
	case *kind.UniqueItems:
		return fmt.Sprintf("%s has non-unique elements (items %d and %d are equal)", val, k.Duplicates[0], k.Duplicates[1])
	default:
		return fmt.Sprintf("%s is not valid: %s", val, e.ErrorKind.LocalizedString(printer))
	}
}

// label names the form an alternative asks for, for the "acceptable formats"
// list.
func (s *shaper) label(alt *jsonschema.ValidationError) string {
	ls := leaves(alt)
	if len(ls) != 1 {
		return strings.Join(s.messagesOf(ls), "; ")
	}
	l := ls[0]
	if name, ok := defLabel(l.SchemaURL); ok {
		return name
	}
	switch k := l.ErrorKind.(type) {
	case *kind.Format:
		return k.Want
	case *kind.Const:
		return showValue(k.Want)
	case *kind.Pattern:
		return fmt.Sprintf("pattern '%s'", k.Want)
	}
	return s.message(l)
}

func (s *shaper) messagesOf(es []*jsonschema.ValidationError) []string {
	var out []string
	for _, e := range es {
		out = append(out, s.message(e))
	}
	return out
}

// leaves returns the failures under e that are not mere containers.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// depth is how deep in the value the deepest failure under e lies.
func depth(e *jsonschema.ValidationError) int {
	d := len(e.InstanceLocation)
	for _, c := range e.Causes {
		d = max(d, depth(c))
	}
	return d
}

// isRedacted reports whether the alternative is the [[REDACTED…]] marker.
func isRedacted(alt *jsonschema.ValidationError) bool {
	for _, l := range leaves(alt) {
		if name, _ := defName(l.SchemaURL); name != "redacted" {
			return false
		}
	}
	return true
}

// isTypeMismatch reports whether the alternative failed only because the
// value at depth d has a JSON type it does not accept.
func isTypeMismatch(alt *jsonschema.ValidationError, d int) bool {
	for _, l := range leaves(alt) {
		if _, ok := l.ErrorKind.(*kind.Type); !ok || len(l.InstanceLocation) != d {
			return false
		}
	}
	return true
}

// defName returns the $defs name a schema location points at directly.
func defName(schemaURL string) (string, bool) {
	_, frag, ok := strings.Cut(schemaURL, "#/$defs/")
	if !ok || strings.Contains(frag, "/") {
		return "", false
	}
	return frag, true
}

func defLabel(schemaURL string) (string, bool) {
	name, ok := defName(schemaURL)
	if !ok {
		return "", false
	}
	l, ok := defLabels[name]
	return l, ok
}

// --- values and paths

// show quotes the value at an instance location for a message.
func (s *shaper) show(loc []string) string {
	v, ok := lookup(s.instance, loc)
	if !ok {
		return "value"
	}
	return showValue(v)
}

// showValue renders v as compact JSON, shortened to maxShownValue characters.
func showValue(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	out := strings.TrimSuffix(buf.String(), "\n")
	if utf8.RuneCountInString(out) <= maxShownValue {
		return out
	}
	runes := []rune(out)
	return string(runes[:maxShownValue-1]) + "…"
}

// lookup finds the value at an instance location.
func lookup(v any, loc []string) (any, bool) {
	for _, tok := range loc {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// segment is one step of a JSON path: an object member or an array index.
type segment struct {
	name  string
	index int // -1 for a member
}

// segments resolves location tokens against the instance so that array
// indexes and members named like numbers are told apart.
func (s *shaper) segments(loc []string) []segment {
	segs := make([]segment, 0, len(loc))
	v := s.instance
	for _, tok := range loc {
		seg := segment{name: tok, index: -1}
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(c) {
				seg.index, v = i, c[i]
			}
		default:
			v = nil
		}
		segs = append(segs, seg)
	}
	return segs
}

// renderPath writes segments as "$.member[index]".
func renderPath(segs []segment) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, seg := range segs {
		if seg.index >= 0 {
			fmt.Fprintf(&b, "[%d]", seg.index)
			continue
		}
		if plainName(seg.name) {
			b.WriteByte('.')
			b.WriteString(seg.name)
			continue
		}
		b.WriteString("['")
		b.WriteString(strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(seg.name))
		b.WriteString("']")
	}
	return b.String()
}

// plainName reports whether a member name can follow a dot unambiguously.
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch r {
		case '.', '[', ']', '\'', '"', '\\', ' ', '$':
			return false
		}
	}
	return true
}

// compareSegments orders paths: a parent before its children, members by
// name, array elements by index.
func compareSegments(a, b []segment) int {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		switch {
		case x.index >= 0 && y.index >= 0:
			if c := x.index - y.index; c != 0 {
				return c
			}
		case x.index >= 0:
			return -1
		case y.index >= 0:
			return 1
		default:
			if c := strings.Compare(x.name, y.name); c != 0 {
				return c
			}
		}
	}
	return len(a) - len(b)
}

// --- wording

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "'" + s + "'"
	}
	return out
}

// joinOr joins "a", "a or b", "a, b or c".
func joinOr(ss []string) string { return joinWith(ss, " or ") }

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(ss []string) string { return joinWith(ss, " and ") }

func joinWith(ss []string, last string) string {
	if len(ss) <= 1 {
		return strings.Join(ss, "")
	}
	return strings.Join(ss[:len(ss)-1], ", ") + last + ss[len(ss)-1]
}
