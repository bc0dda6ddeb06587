package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// SortKeyMax is the length, in bytes, of the longest sort key (Document.TitleSort): SortKey cuts
// the folded title there, at a character boundary. Titles equal on their first SortKeyMax bytes
// once folded order by id.
const SortKeyMax = 256

// foldedLetters are letters that Unicode decomposition leaves whole but that read as ASCII
// letters (Lucene's asciifolding, which the filters use, folds them the same way).
var foldedLetters = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o",
	'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'ł': "l", 'Ł': "l", 'þ': "th", 'Þ': "th", 'ı': "i",
}

// SortKey returns the sort key of a title, the value both backends order searches without text
// by (byte order): the title in lower case with accents removed (compatibility decomposition,
// NFKD, without its combining marks, Unicode category Mn, then recomposed, NFC; ß is "ss", æ
// "ae", ø "o" and the like), cut to at most SortKeyMax bytes at a character boundary. A title
// of marks only gives "", as no title does.
func SortKey(title string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(title) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case foldedLetters[r] != "":
			b.WriteString(foldedLetters[r])
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	s := norm.NFC.String(b.String())
	if len(s) <= SortKeyMax {
		return s
	}
	n := SortKeyMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
