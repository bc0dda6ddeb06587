package profiles_test

import (
	"errors"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl"
	"github.com/harvester-dev/harvester/shacl/profiles"
)

func TestLoadEveryProfile(t *testing.T) {
	require.Equal(t, []string{"dcat-ap-2.1.1", "dcat-ap-3.0.0", "dcat-ap-no-2.0"}, profiles.Names())
	for _, name := range profiles.Names() {
		s, err := profiles.Load(name)
		require.NoError(t, err, name)
		again, err := profiles.Load(name)
		require.NoError(t, err)
		require.Same(t, s, again, "compiled once")
		require.Greater(t, s.Len(), 40, name)
	}
	def, err := profiles.Load("")
	require.NoError(t, err)
	v3, _ := profiles.Load(profiles.DCATAP300)
	require.Same(t, v3, def, "the default profile is DCAT-AP 3.0.0")

	_, err = profiles.Load("dcat-ap-9")
	require.True(t, errors.Is(err, profiles.ErrUnknown), "%v", err)
}

// The only sh: predicates on shapes that Compile ignores are the NO profile's typos,
// which SHACL does not define (pySHACL ignores them too). A new one in an updated shape file
// fails here rather than going unchecked.
func TestIgnoredTerms(t *testing.T) {
	want := map[string][]string{
		profiles.DCATAP211: nil,
		profiles.DCATAP300: nil,
		// sh:MinCount (twice); its sh:targetSubjectOf typos sit on blank nodes inside an RDF list
		// that is itself a member of sh:and, so they are on no shape at all.
		profiles.DCATAPNO2: {shacl.NS + "MinCount"},
	}
	for name, w := range want {
		s, err := profiles.Load(name)
		require.NoError(t, err)
		require.Equal(t, w, s.Ignored(), name)
	}
}

// The mandatory DCAT-AP properties of the issue are checked by every profile: a bare dataset,
// distribution and catalog give sh:minCount violations on dct:title, dct:description,
// dcat:accessURL and the catalog's title, description, publisher (and dataset in 2.1.1 and NO).
func TestMandatoryProperties(t *testing.T) {
	const dct, dcat = "http://purl.org/dc/terms/", "http://www.w3.org/ns/dcat#"
	g := rdf.NewMemGraph()
	for _, tr := range []rdf.Triple{
		{S: rdf.IRI("http://ex/ds"), P: rdf.IRI(rdf.RDFType), O: rdf.IRI(dcat + "Dataset")},
		{S: rdf.IRI("http://ex/dist"), P: rdf.IRI(rdf.RDFType), O: rdf.IRI(dcat + "Distribution")},
		{S: rdf.IRI("http://ex/cat"), P: rdf.IRI(rdf.RDFType), O: rdf.IRI(dcat + "Catalog")},
	} {
		require.NoError(t, g.Add(tr))
	}
	for _, name := range profiles.Names() {
		s, err := profiles.Load(name)
		require.NoError(t, err)
		r := s.Validate(g)
		require.False(t, r.Conforms)
		got := map[string]bool{}
		for _, x := range r.Results {
			if x.Constraint == "sh:minCount" && x.Severity == shacl.Violation {
				got[x.Focus.Value+" "+x.Path] = true
			}
		}
		for _, w := range []string{"http://ex/ds " + dct + "title", "http://ex/ds " + dct + "description",
			"http://ex/dist " + dcat + "accessURL", "http://ex/cat " + dct + "title", "http://ex/cat " + dct + "description",
			"http://ex/cat " + dct + "publisher"} {
			require.True(t, got[w], "%s: missing %s in %v", name, w, keys(got))
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
