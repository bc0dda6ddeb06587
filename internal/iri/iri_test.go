package iri

import "testing"

// The examples of RFC 3986 §5.2.4 and §5.4, and the cases where the two copies this package
// replaced (in harvest and rdf) had to agree.
func TestRemoveDotSegments(t *testing.T) {
	for in, want := range map[string]string{
		"/a/b/c/./../../g":   "/a/g",
		"mid/content=5/../6": "mid/6",
		"":                   "",
		"/":                  "/",
		"/a/b/..":            "/a/",
		"/a/b/.":             "/a/b/",
		"/../g":              "/g",
		"/a/./b/../../../c":  "/c",
		"a/../b":             "/b",
		"/%7Efoo/../bar":     "/bar",
		"/é/./ü":             "/é/ü",
		"/no/dots/here":      "/no/dots/here",
		"/a/b.c/..d/.e":      "/a/b.c/..d/.e",
		"..":                 "",
		"../a":               "a",
		"./a/./b":            "a/b",
	} {
		if got := RemoveDotSegments(in); got != want {
			t.Errorf("RemoveDotSegments(%q) = %q, want %q", in, got, want)
		}
	}
}
