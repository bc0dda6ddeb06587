package ckan

import (
	"fmt"
	"strings"
	"unicode"
)

// FQ fields: the Solr fields of package_search's fq that this API reads.
const (
	FieldOrganization = "organization" // the organization's name (slug), title or id
	FieldOwnerOrg     = "owner_org"    // the organization's id
	FieldTags         = "tags"         // a keyword
	FieldResFormat    = "res_format"   // a distribution's format (else media type)
	FieldGroups       = "groups"       // a theme
	FieldDatasetType  = "dataset_type" // "dataset" matches every package; it is what CKAN adds
	// FieldModifiedSince is "metadata_modified:[<time> TO *]" (what ckanext-harvest's CKAN
	// harvester sends for an incremental harvest): Value is the time, as given.
	FieldModifiedSince = "metadata_modified"
)

// Clause is one clause of an fq: the packages whose Field has Value (whole, case ignored), or,
// with Exclude ("-field:value"), those that do not.
type Clause struct {
	Field   string
	Value   string
	Exclude bool
}

// MaxClauses bounds the clauses of one fq.
const MaxClauses = 32

// ParseFQ reads the Solr subset of fq that CKAN clients send: clauses field:value separated by
// white space or AND (all must hold), each with an optional + (must) or - (must not) prefix,
// the value bare (no white space) or "quoted" (backslash escapes \" and \\), on the fields
// organization, owner_org, tags, res_format, groups and dataset_type. "*:*" matches
// everything. Anything else (OR, NOT, parentheses, ranges, wildcards, other fields, an
// unbalanced quote) is a *Error of type "Search Query Error" naming the clause, as CKAN
// answers a query Solr cannot run.
func ParseFQ(fq string) ([]Clause, error) {
	var out []Clause
	rest := strings.TrimSpace(fq)
	for rest != "" {
		clause, tail, err := nextClause(rest)
		if err != nil {
			return nil, err
		}
		rest = strings.TrimSpace(tail)
		switch clause {
		case "AND", "&&", "*:*":
			continue
		case "OR", "||", "NOT":
			return nil, badClause(clause, "OR and NOT are not supported: every clause must hold (exclude with -field:value)")
		}
		c, err := parseClause(clause)
		if err != nil {
			return nil, err
		}
		if c.Field == FieldDatasetType {
			if c.Exclude != !strings.EqualFold(c.Value, "dataset") {
				return nil, badClause(clause, "every package here is of type dataset")
			}
			continue
		}
		if len(out) == MaxClauses {
			return nil, SearchQueryError(fmt.Sprintf("fq has more than %d clauses", MaxClauses))
		}
		out = append(out, c)
	}
	return out, nil
}

// nextClause cuts the first clause off s (which starts with no white space): up to the next
// white space outside quotes.
func nextClause(s string) (clause, rest string, err error) {
	inQuote, inRange, escaped := false, false, false
	for i, r := range s {
		switch {
		case escaped:
			escaped = false
		case r == '\\' && inQuote:
			escaped = true
		case r == '"':
			inQuote = !inQuote
		case r == '[' && !inQuote:
			inRange = true
		case r == ']' && !inQuote:
			inRange = false
		case unicode.IsSpace(r) && !inQuote && !inRange:
			return s[:i], s[i:], nil
		}
	}
	if inQuote {
		return "", "", badClause(shorten(s), "unbalanced quote")
	}
	if inRange {
		return "", "", badClause(shorten(s), "unbalanced [")
	}
	return s, "", nil
}

// parseClause reads one [+-]field:value clause.
func parseClause(clause string) (Clause, error) {
	var c Clause
	body := clause
	switch {
	case strings.HasPrefix(body, "-"):
		c.Exclude, body = true, body[1:]
	case strings.HasPrefix(body, "+"):
		body = body[1:]
	case strings.HasPrefix(body, "!"):
		return c, badClause(clause, "! is not supported; use -field:value")
	}
	field, value, ok := strings.Cut(body, ":")
	if !ok || field == "" {
		return c, badClause(clause, "want field:value")
	}
	switch field {
	case FieldOrganization, FieldOwnerOrg, FieldTags, FieldResFormat, FieldGroups, FieldDatasetType:
	case FieldModifiedSince:
		from, ok := strings.CutSuffix(value, " TO *]")
		from, ok2 := strings.CutPrefix(from, "[")
		if !ok || !ok2 || c.Exclude || strings.TrimSpace(from) == "" || strings.ContainsAny(from, " []") {
			return c, badClause(clause, "metadata_modified takes one range, [<time> TO *]")
		}
		c.Field, c.Value = field, from
		return c, nil
	default:
		return c, badClause(clause, "field "+field+" is not supported (supported: organization, owner_org, tags, res_format, groups, dataset_type, metadata_modified)")
	}
	c.Field = field
	if strings.HasPrefix(value, `"`) {
		v, err := unquote(value)
		if err != nil {
			return c, badClause(clause, err.Error())
		}
		c.Value = v
	} else {
		if value == "" || strings.ContainsAny(value, `()[]{}*?~^"\`) || value == "OR" || value == "NOT" {
			return c, badClause(clause, "the value must be a word or a \"quoted\" text (no wildcards, ranges or groups)")
		}
		c.Value = value
	}
	if strings.TrimSpace(c.Value) == "" {
		return c, badClause(clause, "empty value")
	}
	return c, nil
}

// unquote reads a "quoted" value that must end the clause.
func unquote(s string) (string, error) {
	var b strings.Builder
	escaped := false
	for i, r := range s[1:] {
		switch {
		case escaped:
			b.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case r == '"':
			if i+2 != len(s) {
				return "", fmt.Errorf("text after the closing quote")
			}
			return b.String(), nil
		default:
			b.WriteRune(r)
		}
	}
	return "", fmt.Errorf("unbalanced quote")
}

// badClause is the Search Query Error of a clause.
func badClause(clause, why string) *Error {
	return SearchQueryError(fmt.Sprintf("fq clause '%s': %s", shorten(clause), why))
}

// shorten cuts s to 200 bytes (on a rune boundary) for an error message.
func shorten(s string) string {
	if len(s) <= 200 {
		return s
	}
	i := 200
	for i > 0 && !utfStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func utfStart(b byte) bool { return b&0xC0 != 0x80 }

// Sorts of package_search that this API answers.
const (
	SortRelevance = "score desc"             // CKAN's default ("score desc, metadata_modified desc")
	SortModified  = "metadata_modified desc" // newest first
	SortTitle     = "title_string asc"       // by title
	SortID        = "id asc"                 // the store's keyset order (what Harvester's own CKAN harvester asks)
)

// ParseSort reads package_search's sort: "" or any of the sorts above, the first of a
// comma-separated list deciding ("score desc, metadata_modified desc" is SortRelevance).
// Another is a Search Query Error naming it.
func ParseSort(sort string) (string, error) {
	first, _, _ := strings.Cut(sort, ",")
	norm := strings.ToLower(strings.Join(strings.Fields(first), " "))
	switch norm {
	case "":
		return SortRelevance, nil
	case SortRelevance, SortModified, SortTitle, SortID:
		return norm, nil
	}
	return "", SearchQueryError(fmt.Sprintf("sort %q is not supported (supported: %s, %s, %s, %s)", shorten(sort),
		SortRelevance, SortModified, SortTitle, SortID))
}
