package fgdc

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// blockElements end a line of text: paragraphs, divisions, line breaks, list items, headings,
// table rows.
var blockElements = map[atom.Atom]bool{atom.Div: true, atom.P: true, atom.Br: true, atom.Li: true,
	atom.Ul: true, atom.Ol: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true,
	atom.H6: true, atom.Tr: true, atom.Table: true, atom.Blockquote: true, atom.Pre: true}

// markupText returns the text of prose written as HTML, as ArcGIS 10.x exports the rich text
// of an item's description into FGDC (escaped in the XML: "&lt;DIV STYLE=…&gt;&lt;P&gt;
// &lt;SPAN&gt;Roads…"): the character data, character references decoded (golang.org/x/net/html's
// tokenizer), one line per paragraph, division, list item or line break, runs of white space
// made one space. ok is false, and s is kept as it is, unless s is wholly markup: it begins
// with a tag and ends with one, and every tag in it names an HTML element (so "<1 km" or an
// "<Unknown>" in prose is left alone).
func markupText(s string) (text string, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) < 3 || s[0] != '<' || s[len(s)-1] != '>' {
		return "", false
	}
	var lines []string
	var line strings.Builder
	endLine := func() {
		if l := strings.Join(strings.Fields(line.String()), " "); l != "" {
			lines = append(lines, l)
		}
		line.Reset()
	}
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken: // io.EOF: the string is read whole
			endLine()
			return strings.Join(lines, "\n"), len(lines) > 0
		case html.TextToken:
			line.WriteString(html.UnescapeString(string(z.Text())))
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == 0 {
				return "", false
			}
			if blockElements[a] {
				endLine()
			}
		}
	}
}
