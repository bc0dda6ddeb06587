package dcatus

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDescription is the longest dataset description DCAT-US 1.1 allows (both schemas'
// maxLength), in characters: Unicode code points, as JSON Schema counts a string's length.
const MaxDescription = 10000

// wordSlack is how far back from the limit Shorten looks for a word boundary.
const wordSlack = 200

// Shorten returns s cut to at most max characters (code points; max ≥ 1) and whether it cut
// anything. The cut is on a character boundary, at the last white space within 200
// characters of the limit when there is one, and ends in "…" (counted within max), so a
// reader sees the text goes on. s within max is returned as it is.
func Shorten(s string, max int) (string, bool) {
	if utf8.RuneCountInString(s) <= max {
		return s, false
	}
	// byte offset of the (max-1)th character: room for the ellipsis
	end, n := 0, 0
	for i := range s {
		if n == max-1 {
			end = i
			break
		}
		n++
	}
	cut := s[:end]
	if i := strings.LastIndexFunc(cut, unicode.IsSpace); i >= 0 && utf8.RuneCountInString(cut[i:]) <= wordSlack {
		cut = cut[:i]
	}
	return strings.TrimRightFunc(cut, unicode.IsSpace) + "…", true
}

// ShortenDescription is Shorten(s, MaxDescription), with the warning a mapper gives when it
// cut ("" when it did not): how long the text was and how long it is now.
func ShortenDescription(s string) (description, warning string) {
	out, cut := Shorten(s, MaxDescription)
	if !cut {
		return s, ""
	}
	return out, fmt.Sprintf("the text is %d characters, over the %d DCAT-US allows; cut to %d at a word, ending in \"…\"",
		utf8.RuneCountInString(s), MaxDescription, utf8.RuneCountInString(out))
}

// MaxKeywords is the most keywords a DCAT-US 1.1 dataset may have (both schemas' maxItems).
const MaxKeywords = 1000

// ShortenKeywords returns the first MaxKeywords of keywords, with the warning a mapper gives
// when it dropped the rest ("" when it did not): a record with more keywords than DCAT-US
// allows keeps its first ones rather than failing validation whole.
func ShortenKeywords(keywords []string) (kept []string, warning string) {
	if len(keywords) <= MaxKeywords {
		return keywords, ""
	}
	return keywords[:MaxKeywords:MaxKeywords], fmt.Sprintf("the record has %d keywords, over the %d DCAT-US allows; kept the first %d",
		len(keywords), MaxKeywords, MaxKeywords)
}
