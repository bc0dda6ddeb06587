package dcatap

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/rdf"
)

// title returns the least of term id's dct:title literals, "" when it has none.
func (s *splitter) title(id uint32) (string, error) {
	if s.dctTitle == rdf.NoID {
		return "", nil
	}
	var titles []string
	err := s.matchIDs(id, s.dctTitle, rdf.NoID, func(it rdf.IDTriple) error {
		o, err := s.term(it.O)
		if err == nil && o.IsLiteral() {
			titles = append(titles, o.Value)
		}
		return err
	})
	if err != nil || len(titles) == 0 {
		return "", err
	}
	return clipLabel(slices.Min(titles)), nil
}

// maxLabelBytes caps a problem resource's Label and each catalog IRI its Problem names, so that
// an error row stays small whatever the source's terms (a literal may be up to the parser's
// term cap, megabytes long).
const maxLabelBytes = 256

// clipLabel returns s cut to at most maxLabelBytes bytes at a UTF-8 character boundary, with
// "…" appended when it was cut.
func clipLabel(s string) string {
	if len(s) <= maxLabelBytes {
		return s
	}
	cut := maxLabelBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// problems describes the blank-node datasets, series and catalogs, sorted by label and then by
// content hash (stable across parses, unlike blank labels).
func (s *splitter) problems() ([]*Resource, error) {
	h := newBlankHasher(func(b rdf.Term) ([]rdf.Triple, error) {
		var ts []rdf.Triple
		err := s.g.Match(b, rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error {
			ts = append(ts, t)
			return nil
		})
		return ts, err
	})
	type problem struct {
		r   *Resource
		key string
	}
	var ps []problem
	for _, id := range s.blanks {
		b, err := s.term(id)
		if err != nil {
			return nil, err
		}
		in := s.info[id]
		r := &Resource{Kind: in.typed()}
		if r.Label, err = s.title(id); err != nil {
			return nil, err
		}
		inBlank, err := s.inBlankCatalog(id)
		if err != nil {
			return nil, err
		}
		if r.Kind != KindCatalog {
			r.Catalogs = slices.Clone(s.catalogsOf(in.catalogs))
		}
		r.Problem = problemMessage(r, inBlank)
		d, err := h.hash(b)
		if err != nil {
			return nil, err
		}
		ps = append(ps, problem{r, r.Label + "\x00" + hex.EncodeToString(d[:])})
	}
	slices.SortFunc(ps, func(a, b problem) int { return strings.Compare(a.key, b.key) })
	out := make([]*Resource, len(ps))
	for i, p := range ps {
		out[i] = p.r
	}
	return out, nil
}

// inBlankCatalog reports whether a blank-node catalog lists term id (dcat:dataset).
func (s *splitter) inBlankCatalog(id uint32) (bool, error) {
	inBlank := false
	if s.dcatDataset == rdf.NoID {
		return false, nil
	}
	err := s.matchIDs(rdf.NoID, s.dcatDataset, id, func(it rdf.IDTriple) error {
		if inBlank {
			return nil
		}
		sub, err := s.term(it.S)
		if err == nil && sub.IsBlank() {
			inBlank = s.info[it.S].catalog
		}
		return err
	})
	return inBlank, err
}

// problemMessage is the Problem of the blank-node resource r (its Kind, Label and Catalogs
// set); inBlank says whether a blank-node catalog lists it.
func problemMessage(r *Resource, inBlank bool) string {
	what := "dataset"
	switch r.Kind {
	case KindSeries:
		what = "dataset series"
	case KindCatalog:
		what = "catalog"
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "%s without an IRI (a blank node)", what)
	if r.Label != "" {
		fmt.Fprintf(&msg, " titled %q", r.Label)
	}
	if r.Kind == KindCatalog {
		msg.WriteString(": it is not harvested as a catalog (its datasets are)")
		return msg.String()
	}
	switch {
	case len(r.Catalogs) > 0:
		named := make([]string, 0, 3)
		for _, c := range r.Catalogs[:min(len(r.Catalogs), 3)] {
			named = append(named, clipLabel(c))
		}
		fmt.Fprintf(&msg, " in catalog <%s>", strings.Join(named, ">, <"))
		if len(r.Catalogs) > 3 {
			fmt.Fprintf(&msg, " and %d more", len(r.Catalogs)-3)
		}
	case inBlank:
		msg.WriteString(" in a catalog without an IRI")
	}
	msg.WriteString(": a record needs an IRI as its identifier")
	return msg.String()
}
