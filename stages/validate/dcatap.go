package validate

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl"
	"github.com/harvester-dev/harvester/shacl/profiles"
)

const (
	dcatNS = "http://www.w3.org/ns/dcat#"
	// recordErrorType is the Type of the error rows VALIDATE writes; its warning rows are
	// harvest.TypeValidationWarning.
	recordErrorType = harvest.TypeValidationError
)

// mandatoryClasses are the DCAT-AP classes whose mandatory properties fail a record: an
// sh:minCount Violation on an instance of one of them is an error; DCAT-AP's other classes
// (agents, checksums, identifiers, …) only warn.
var mandatoryClasses = []string{dcatNS + "Dataset", dcatNS + "DatasetSeries", dcatNS + "Distribution", dcatNS + "Catalog"}

// ProfileNone is the shacl_profile that checks nothing: the source's records are synced as
// they come, as the FDK dataset harvester does (FDK validates in a service of its own, after
// harvesting).
const ProfileNone = "none"

// ValidateDCATAP checks one DCAT-AP record graph (canonical N-Quads, Record.Body) against the
// SHACL profile named by profile ("" is profiles.Default; ProfileNone checks nothing) and sorts the report into errors (Type harvest.TypeValidationError, SeverityError), which fail
// the record (status error_validation), and warnings (Type harvest.TypeValidationWarning,
// SeverityWarning), which never do:
//
//   - error: a body that does not parse as N-Quads; an unknown profile; a record whose
//     identifier is not typed dcat:Dataset or dcat:DatasetSeries in its graph (the mandatory
//     class is missing); an sh:minCount result of severity sh:Violation whose focus node is a
//     dcat:Dataset, dcat:DatasetSeries, dcat:Distribution or dcat:Catalog (a mandatory property
//     missing);
//   - warning: every other result: range Violations (sh:class, sh:datatype, sh:nodeKind,
//     sh:node, sh:or, …), cardinality Violations on other classes, sh:maxCount, and every
//     sh:Warning and sh:Info result.
//
// Each row's message is "<focus> <path>: <message> (<constraint>)", the path written with the
// usual DCAT-AP prefixes (dct:title); a node-shape result has no path.
func ValidateDCATAP(identifier string, body []byte, profile string) (errs, warnings []harvest.RecordError) {
	fail := func(msg string) ([]harvest.RecordError, []harvest.RecordError) {
		return []harvest.RecordError{{Type: recordErrorType, Message: msg, Severity: harvest.SeverityError}}, nil
	}
	if profile == ProfileNone {
		return nil, nil
	}
	shapes, err := profiles.Load(profile)
	if err != nil {
		return fail(err.Error())
	}
	g := rdf.NewMemGraph()
	if err := rdf.ParseRecord(bytes.NewReader(body), g.Add); err != nil {
		return fail("record graph (N-Quads) does not parse: " + err.Error())
	}
	root := rdf.IRI(identifier)
	if !hasType(g, root, dcatNS+"Dataset") && !hasType(g, root, dcatNS+"DatasetSeries") {
		errs = append(errs, harvest.RecordError{Type: recordErrorType, Severity: harvest.SeverityError,
			Message: identifier + " rdf:type: the record is not a dcat:Dataset or dcat:DatasetSeries (mandatory class)"})
	}
	seen := map[string]bool{}
	for _, r := range shapes.Validate(g).Results {
		msg := resultMessage(r)
		if seen[msg] {
			continue // the same failure from two shapes (a class and its subclass target) is one row
		}
		seen[msg] = true
		row := harvest.RecordError{Type: harvest.TypeValidationWarning, Message: msg, Severity: harvest.SeverityWarning}
		if mandatory(g, r) {
			row.Type, row.Severity = recordErrorType, harvest.SeverityError
			errs = append(errs, row)
		} else {
			warnings = append(warnings, row)
		}
	}
	return errs, warnings
}

// mandatory reports whether r is a missing mandatory property (see ValidateDCATAP).
func mandatory(g rdf.Graph, r shacl.Result) bool {
	if r.Severity != shacl.Violation || r.Constraint != "sh:minCount" {
		return false
	}
	for _, c := range mandatoryClasses {
		if hasType(g, r.Focus, c) {
			return true
		}
	}
	return false
}

func hasType(g rdf.Graph, n rdf.Term, class string) bool {
	found := false
	_ = g.Match(n, rdf.IRI(rdf.RDFType), rdf.IRI(class), func(rdf.Triple) error { found = true; return nil })
	return found
}

var prefixes = []struct{ prefix, ns string }{
	{"dct:", "http://purl.org/dc/terms/"}, {"dcat:", dcatNS}, {"foaf:", "http://xmlns.com/foaf/0.1/"},
	{"vcard:", "http://www.w3.org/2006/vcard/ns#"}, {"adms:", "http://www.w3.org/ns/adms#"},
	{"skos:", "http://www.w3.org/2004/02/skos/core#"}, {"spdx:", "http://spdx.org/rdf/terms#"},
	{"rdf:", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"}, {"rdfs:", "http://www.w3.org/2000/01/rdf-schema#"},
	{"owl:", "http://www.w3.org/2002/07/owl#"}, {"prov:", "http://www.w3.org/ns/prov#"},
	{"odrl:", "http://www.w3.org/ns/odrl/2/"}, {"locn:", "http://www.w3.org/ns/locn#"},
	{"dcatap:", "http://data.europa.eu/r5r/"}, {"schema:", "http://schema.org/"},
	{"cpsv:", "http://purl.org/vocab/cpsv#"}, {"time:", "http://www.w3.org/2006/time#"},
	{"dqv:", "http://www.w3.org/ns/dqv#"}, {"eli:", "http://data.europa.eu/eli/ontology#"},
	{"cv:", "http://data.europa.eu/m8g/"},
}

func compact(iri string) string {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(iri, p.ns); ok && rest != "" && !strings.ContainsAny(rest, "/#") {
			return p.prefix + rest
		}
	}
	return "<" + iri + ">"
}

func resultMessage(r shacl.Result) string {
	focus := r.Focus.NTriples()
	if r.Focus.IsIRI() {
		focus = r.Focus.Value
	}
	var b strings.Builder
	b.WriteString(focus)
	if r.Path != "" {
		b.WriteByte(' ')
		b.WriteString(compact(r.Path))
	}
	msg := r.Message
	if !r.Value.IsZero() && !strings.Contains(msg, r.Value.NTriples()) {
		msg += " (value " + r.Value.NTriples() + ")"
	}
	fmt.Fprintf(&b, ": %s (%s)", msg, r.Constraint)
	return b.String()
}
