package rdf

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// runRDF lists doc, a file named file, as an rdf source's DCAT-AP catalog.
func runRDF(t testing.TB, file, doc string, live []string, opts ...extract.Option) *extractRun {
	t.Helper()
	return runExtractAs(t, openSQLite(t), file, harvest.SourceRDF, harvest.SchemaDCATAP, []byte(doc), live, opts...)
}

// catalogTTL is a DCAT-AP catalog in Turtle of datasets with the IRIs ids.
func catalogTTL(extra string, ids ...string) string {
	var b strings.Builder
	b.WriteString("@prefix dcat: <http://www.w3.org/ns/dcat#> .\n@prefix dct: <http://purl.org/dc/terms/> .\n")
	b.WriteString("<http://e.org/cat> a dcat:Catalog")
	for _, id := range ids {
		b.WriteString(" ; dcat:dataset <" + id + ">")
	}
	b.WriteString(" .\n")
	for _, id := range ids {
		b.WriteString("<" + id + "> a dcat:Dataset ; dct:title \"T\" .\n")
	}
	return b.String() + extra
}

// TestRDFTermOverTheRecordCapFailsTheJob (issue 25 D8): a literal longer than the record size
// cap stops the parse with a job error naming the cap, and nothing is listed or deleted.
func TestRDFTermOverTheRecordCapFailsTheJob(t *testing.T) {
	t.Parallel()
	doc := catalogTTL(`<http://e.org/d1> dct:description "`+strings.Repeat("x", 40_000)+`" .`, "http://e.org/d1")
	r := runRDF(t, "catalog.ttl", doc, []string{"http://e.org/d1"}, extract.WithMaxRecordBytes(32<<10))
	require.NoError(t, r.err)
	errs := r.jobErrors(t)
	require.Len(t, errs, 1)
	require.Contains(t, errs[0].Message, "string longer than 32768 bytes, the term cap")
	require.Contains(t, errs[0].Message, "--max-record-bytes")
	require.Empty(t, r.records(t))
	require.Empty(t, r.msgs[harvest.SubjectListing], "no listing: nothing is deleted")
}

// TestRDFLongIRIIsAnErrorRow (issue 25 D7): a dataset IRI over harvest.MaxIdentifierBytes is an
// IdentifierTooLong error row naming it clipped; its live dataset, if any, is kept (up to
// harvest.MaxKeptIdentifierBytes, what a stored identifier can be).
func TestRDFLongIRIIsAnErrorRow(t *testing.T) {
	t.Parallel()
	long := "http://e.org/" + strings.Repeat("l", 2100)
	r := runRDF(t, "catalog.ttl", catalogTTL("", "http://e.org/ok", long), []string{long})
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	require.Equal(t, []string{"http://e.org/ok"}, identifiers(r.records(t)))
	s := r.recordErrors(t)["IdentifierTooLong"]
	require.Equal(t, harvest.ClipIdentifier(long), s.Identifier)
	require.Contains(t, s.Errors[0].Message, "identifier is 2113 bytes long, over the identifier cap of 2048 bytes")
	require.Empty(t, r.unseen(t), "the dataset is in the source: it must not be deleted")
}

// TestRDFLenientReadingWarns (item 33): RDF/XML read leniently (a bad rdf:ID) is harvested, and
// the problem is a warning row on the first dataset record.
func TestRDFLenientReadingWarns(t *testing.T) {
	t.Parallel()
	doc := `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcat="http://www.w3.org/ns/dcat#"
  xmlns:dct="http://purl.org/dc/terms/" xml:base="http://e.org/">
  <dcat:Catalog rdf:about="cat">
    <dcat:dataset><dcat:Dataset rdf:about="d1"><dct:title>One</dct:title></dcat:Dataset></dcat:dataset>
    <dcat:dataset><dcat:Dataset rdf:about="d2"><dct:title rdf:ID="1-bad">Two</dct:title></dcat:Dataset></dcat:dataset>
  </dcat:Catalog>
</rdf:RDF>`
	r := runRDF(t, "catalog.rdf", doc, nil)
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	recs := r.records(t)
	require.Len(t, recs, 2)
	require.Len(t, recs[0].Warnings, 1)
	w := recs[0].Warnings[0]
	require.Equal(t, "RDFSyntaxWarning", w.Type)
	require.Equal(t, harvest.SeverityWarning, w.Severity)
	require.Contains(t, w.Message, "catalog.rdf does not follow the RDF/XML grammar and was read leniently: [line: 6, col: 48]")
	require.Contains(t, w.Message, `rdf:ID "1-bad" is not an XML NCName`)
	require.Empty(t, recs[1].Warnings)
}

// TestRDFCommentAfterPrefixedNameWarns (issue 34 item 11): a Turtle catalog with "dct:x#…"
// (a '#' right after a prefixed name, which starts a comment, W3C comment_following_localName)
// is harvested as the grammar reads it, and the job says so in a warning row on the first
// dataset record: the publisher most likely meant the '#' as part of the IRI.
func TestRDFCommentAfterPrefixedNameWarns(t *testing.T) {
	t.Parallel()
	doc := catalogTTL("@prefix ex: <http://e.org/ns/> .\n<http://e.org/d1> dct:conformsTo ex:profile#v2\n.\n", "http://e.org/d1")
	r := runRDF(t, "catalog.ttl", doc, nil)
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t))
	recs := r.records(t)
	require.Len(t, recs, 1)
	require.Contains(t, string(recs[0].Body), "<http://e.org/d1> <http://purl.org/dc/terms/conformsTo> <http://e.org/ns/profile> .")
	require.Len(t, recs[0].Warnings, 1)
	w := recs[0].Warnings[0]
	require.Equal(t, "RDFSyntaxWarning", w.Type)
	require.Equal(t, harvest.SeverityWarning, w.Severity)
	require.Contains(t, w.Message, "catalog.ttl was read with a warning: [line: 6, col: 44] '#' right after the prefixed name ex:profile starts a comment")
}
