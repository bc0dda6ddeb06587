package web

import (
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

// TestFormsAreLabelled: on every page with a form (and the public dataset page), each visible field has a <label for> (or
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
		"/dashboard?organization_id=" + f.org.ID, "/harvest_sources?health=ok&sort=health&q=agency",
		"/harvest_records/" + f.updated.ID, "/dataset/" + liveSlug(t, st, f.src.ID, "a"),
		"/harvest_sources/new?source_type=rdf", "/harvest_sources/new?source_type=waf-collection",
		"/harvest_sources/" + f.src.ID + "/edit?source_type=csw", "/harvest_jobs/" + f.job1.ID + "/records",
		"/harvest_jobs/" + f.job1.ID + "/record_errors?severity=error", "/dashboard?window=1h", "/quality"} {
		code, body := b.get(path)
		require.Equal(t, http.StatusOK, code, path)
		requireLabelled(t, path, body)
	}
}

// requireLabelled fails t unless the page body has a label (or aria-label) for each visible
// field, unique ids, one h1 and a lang.
func requireLabelled(t *testing.T, path, body string) {
	t.Helper()
	{
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

// TestStatusColoursContrast: the health badges' text passes WCAG AA on their background
// (4.5:1) and the timeline's bars and the links stand out from the white page (3:1 for
// graphics, 4.5:1 for text), as WCAG 2.1 1.4.3 and 1.4.11 ask.
func TestStatusColoursContrast(t *testing.T) {
	css := readStatic(t, "app.css")
	badges := regexp.MustCompile(`\.(health-[a-z]+) \{ color:(#[0-9a-f]{6}); background:(#[0-9a-f]{6});`).FindAllStringSubmatch(css, -1)
	require.Len(t, badges, 5, "one rule per health state")
	for _, m := range badges {
		require.GreaterOrEqual(t, contrast(t, m[2], m[3]), 4.5, m[1])
	}
	bars := regexp.MustCompile(`\.(bar-[a-z]+) \{ fill:(#[0-9a-f]{6}); \}`).FindAllStringSubmatch(css, -1)
	require.Len(t, bars, 5, "one rule per timeline colour")
	for _, m := range bars {
		require.GreaterOrEqual(t, contrast(t, m[2], "#ffffff"), 3.0, m[1])
	}
	for _, v := range []string{"--link", "--muted", "--bad", "--ok", "--warn"} {
		m := regexp.MustCompile(v + `:(#[0-9a-f]{6})`).FindStringSubmatch(css)
		require.NotNil(t, m, v)
		require.GreaterOrEqual(t, contrast(t, m[1], "#ffffff"), 4.5, v)
	}
}

// TestKeyboardFocus: every focusable kind of element, the timeline's job links among them,
// shows a visible focus ring.
func TestKeyboardFocus(t *testing.T) {
	css := readStatic(t, "app.css")
	rule := regexp.MustCompile(`(?m)^(.*:focus-visible.*)\{ outline:\.25rem solid`).FindStringSubmatch(css)
	require.NotNil(t, rule, "a focus outline rule")
	for _, sel := range []string{"a:focus-visible", "button:focus-visible", "input:focus-visible", "select:focus-visible",
		"textarea:focus-visible", "summary:focus-visible"} {
		require.Contains(t, rule[1], sel)
	}
	require.Contains(t, css, "svg a:focus-visible rect { stroke:", "the timeline's bars")
}

func readStatic(t *testing.T, name string) string {
	b, err := assets.ReadFile("static/" + name)
	require.NoError(t, err)
	return string(b)
}

// contrast is the WCAG 2.1 contrast ratio of two #rrggbb colours.
func contrast(t *testing.T, a, b string) float64 {
	la, lb := luminance(t, a), luminance(t, b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

// luminance is the WCAG 2.1 relative luminance of a #rrggbb colour.
func luminance(t *testing.T, hex string) float64 {
	v, err := strconv.ParseUint(hex[1:], 16, 32)
	require.NoError(t, err)
	var l float64
	for i, w := range []float64{0.2126, 0.7152, 0.0722} {
		c := float64(v>>(16-8*i)&0xff) / 255
		if c <= 0.03928 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += w * c
	}
	return l
}
