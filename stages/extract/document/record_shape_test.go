package document

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/catalog"
)

// nested returns a JSON value n arrays deep around 0.
func nested(n int) string { return strings.Repeat("[", n) + "0" + strings.Repeat("]", n) }

func TestHandleDuplicateKeys(t *testing.T) {
	t.Parallel()
	doc := `{"dataset":[
	{"identifier":"a","title":"first","title":"second"},
	{"identifier":"ok","distribution":[{"format":"csv"},{"format":"json"}],"title":"t"},
	{"identifier":"b","distribution":[{"format":"csv"},{"format":"json","form\u0061t":"xml","title":"x","title":"y"}]},
	{"identifier":"c","title":"t","identifier":"d"},
	{"identifier":"e","weird key":{"k":1,"k":2}}
]}`
	r := runExtract(t, []byte(doc), []string{"a", "b", "c", "d", "e", "ok"})
	require.NoError(t, r.err, "a record with a repeated key does not fail the job")
	require.Empty(t, r.jobErrors(t))
	require.Equal(t, []string{"ok"}, identifiers(r.records(t)))
	require.Equal(t, 5, r.listed(t))
	byID := r.onlyErrors(t, "DuplicateKey")
	require.Equal(t, map[string]string{
		"a": `dataset #1 (identifier "a") repeats key "title" at $.title; JSON readers disagree on which member counts, so neither is trusted`,
		"b": `dataset #3 (identifier "b") repeats key "format" at $.distribution[1].format (and 1 more repeated keys); JSON readers disagree on which member counts, so neither is trusted`,
		"":  `dataset #4 (title "t") repeats key "identifier" at $.identifier; JSON readers disagree on which member counts, so neither is trusted`,
		"e": `dataset #5 (identifier "e") repeats key "k" at $["weird key"].k; JSON readers disagree on which member counts, so neither is trusted`,
	}, byID)
	require.ElementsMatch(t, []string{"c", "d"}, r.unseen(t),
		"a record with a trusted identifier keeps its dataset; one repeating \"identifier\" has none to trust")
}

func TestHandleNestedTooDeep(t *testing.T) {
	t.Parallel()
	doc := `{"dataset":[
	{"identifier":"a","spatial":` + nested(catalog.MaxRecordDepth-1) + `},
	{"identifier":"deep","spatial":{"coordinates":` + nested(catalog.MaxRecordDepth) + `},"title":"after"},
	{"identifier":"b"},
	{"identifier":"deeper","x":"y","z":` + nested(20000) + `,"title":"t","title":"dup"},
	{"identifier":"c","d":"` + nested(20000) + `"}
],"tail":` + nested(30000) + `}`
	r := runExtract(t, []byte(doc), []string{"deep", "deeper"})
	require.NoError(t, r.err)
	require.Empty(t, r.jobErrors(t), "a record nested too deeply does not fail the job")
	require.Equal(t, []string{"a", "b", "c"}, identifiers(r.records(t)))
	require.Equal(t, 5, r.listed(t))
	msgs := r.onlyErrors(t, "NestedTooDeep")
	require.Equal(t, `dataset #2 (identifier "deep") nests deeper than 512 levels (at $.spatial.coordinates[0][0][0][0][0][0][0][0][0][0]…(498 levels)…[0][0]); it is not read further`, msgs["deep"])
	require.Contains(t, msgs["deeper"], `dataset #4 (identifier "deeper") nests deeper than 512 levels (at $.z[0]`)
	require.Empty(t, r.unseen(t), "the records are in the source: their datasets are kept")
	require.Equal(t, nested(catalog.MaxRecordDepth-1), string(r.records(t)[0].Body[len(`{"identifier":"a","spatial":`):len(r.records(t)[0].Body)-1]),
		"a record at the limit is sent whole")
}
