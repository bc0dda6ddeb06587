package catalogsync

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// MaxSlugLen is the longest slug in bytes (Data.gov H2.0 munge_title_to_name).
const MaxSlugLen = 90

var (
	separators = regexp.MustCompile(`[ .:/\t\n\r]+`)
	disallowed = regexp.MustCompile(`[^a-z0-9_-]+`)
	dashes     = regexp.MustCompile(`-{2,}`)
	trailYear  = regexp.MustCompile(`-((19|20)\d\d)$`)
)

// Slug makes a dataset slug from a title as Data.gov does: accents dropped (NFKD, then ASCII
// only), spaces, dots, colons and slashes become dashes, only [a-z0-9_-] kept, dashes
// collapsed, at most MaxSlugLen bytes keeping a trailing year, at least 2 characters.
// An empty result falls back to "dataset".
func Slug(title string) string {
	s := norm.NFKD.String(title)
	s = strings.Map(func(r rune) rune {
		if r > 127 {
			return -1
		}
		return r
	}, s)
	s = strings.ToLower(separators.ReplaceAllString(s, "-"))
	s = dashes.ReplaceAllString(disallowed.ReplaceAllString(s, ""), "-")
	s = strings.Trim(s, "-")
	if len(s) > MaxSlugLen {
		year := trailYear.FindString(s)
		s = strings.TrimRight(s[:MaxSlugLen-len(year)], "-") + year
	}
	switch {
	case s == "":
		return "dataset"
	case len(s) < 2:
		return s + "-"
	}
	return s
}

// suffixed returns slug with "-" and 5 random hex characters, cut to fit MaxSlugLen: the
// retry after a slug collision.
func suffixed(slug string) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	suffix := "-" + hex.EncodeToString(b[:])[:5]
	if len(slug)+len(suffix) > MaxSlugLen {
		slug = strings.TrimRight(slug[:MaxSlugLen-len(suffix)], "-")
	}
	return slug + suffix
}
