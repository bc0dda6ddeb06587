package catalog

import (
	"strings"
	"testing"
)

// TestWalkEntriesAsWalkCatalog: WalkEntries and Check, which decode each record once,
// give what WalkCatalog and Identify give, on every DCAT-US document of the corpus and on
// documents that stress how records are cut from the stream: separators, records larger than
// the read buffers, members around the dataset array, records that are not objects.
func TestWalkEntriesAsWalkCatalog(t *testing.T) {
	t.Parallel()
	for name, doc := range corpusDocuments(t) {
		t.Run(name, func(t *testing.T) { requireSameWalks(t, doc) })
	}
	big := strings.Repeat(`<p>a, "b" \u00e9 </p>`, 20000) // ~400 KB, over every buffer
	for name, doc := range map[string]string{
		"separators": "\xEF\xBB\xBF{ \"dataset\" :\r\n[\t{\"identifier\":\"a\"} ,\n\n{\"identifier\" : \"b\"}\r\n,\"x\",1,null,[],{}] }",
		"big":        `{"title":"` + big + `","dataset":[{"identifier":"a","d":"` + big + `"},{"identifier":"b"},{"d":"` + big + `","identifier":{"@id":"c"}}],"tail":"` + big + `"}`,
		"types":      `{"dataset":[{"identifier":5},{"identifier":"","title":"t"},{"title":["x"],"identifier":"k"},{"Identifier":"case"},"s",[{"identifier":"n"}]]}`,
		"empty":      `{"dataset":[]}`,
		"truncated":  `{"dataset":[{"identifier":"a"},{"identifier":"b"`,
		"syntax":     `{"dataset":[{"identifier":"a"},{"identifier":"b",}]}`,
		"duplicate":  `{"dataset":[{"identifier":"a"}],"dataset":[]}`,
	} {
		t.Run(name, func(t *testing.T) { requireSameWalks(t, []byte(doc)) })
	}
}
