package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// TestFormsAreLabelled: on every page with a form, each visible field has a <label for> (or
// an aria-label), every id is unique, and the page has one h1 and a lang.
func TestFormsAreLabelled(t *testing.T) {
	st := sqliteStore(t)
	f := seed(t, st)
	b := newSite(t, st).browser(t)
	b.signIn()
	for _, path := range []string{"/sign-in", "/organizations/new", "/organizations/" + f.org.ID + "/edit",
		"/harvest_sources", "/harvest_sources/new", "/harvest_sources/" + f.src.ID + "/edit",
		"/harvest_sources/" + f.src.ID + "/jobs/new?job_type=clear", "/harvest_sources/" + f.src.ID + "/delete",
		"/harvest_jobs/" + f.job1.ID, "/harvest_jobs/" + f.job1.ID + "/cancel", "/validate", "/search", "/dashboard",
		"/harvest_records/" + f.updated.ID} {
		code, body := b.get(path)
		require.Equal(t, http.StatusOK, code, path)
		doc, err := html.Parse(strings.NewReader(body))
		require.NoError(t, err, path)
		labels, ids := map[string]bool{}, map[string]int{}
		var fields []*html.Node
		h1 := 0
		var lang string
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				if id := attr(n, "id"); id != "" {
					ids[id]++
				}
				switch n.Data {
				case "html":
					lang = attr(n, "lang")
				case "h1":
					h1++
				case "label":
					labels[attr(n, "for")] = true
				case "input", "select", "textarea", "progress":
					if typ := attr(n, "type"); typ != "hidden" && typ != "submit" {
						fields = append(fields, n)
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
		require.Equal(t, "en", lang, path)
		require.Equal(t, 1, h1, "%s: one h1", path)
		for id, n := range ids {
			require.Equal(t, 1, n, "%s: id %q is used %d times", path, id, n)
		}
		for _, n := range fields {
			id := attr(n, "id")
			require.True(t, labels[id] && id != "" || attr(n, "aria-label") != "", "%s: <%s name=%q id=%q> has no label",
				path, n.Data, attr(n, "name"), id)
		}
	}
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}
