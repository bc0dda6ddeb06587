package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// TestDocsLinksResolve: every relative link of the README and docs/*.md names a file of the
// repository, and every #anchor a heading of its page (GitHub's heading ids: lower case,
// punctuation dropped, spaces as hyphens, -1, -2 … for repeats), so moving a section cannot
// leave a dead link behind.
func TestDocsLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	pages = append(pages, "../../README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target, anchor, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file := page
			if target != "" {
				file = filepath.Join(filepath.Dir(page), target)
			}
			_, err := os.Stat(file)
			require.NoError(t, err, "%s links to %s", page, m[1])
			if anchor != "" && strings.HasSuffix(file, ".md") {
				require.Contains(t, headingIDs(t, file), anchor, "%s links to %s", page, m[1])
			}
		}
	}
}

// headingIDs are the ids GitHub gives the headings of a Markdown file (outside code fences).
func headingIDs(t *testing.T, file string) map[string]bool {
	text, err := os.ReadFile(file)
	require.NoError(t, err)
	ids, seen, fenced := map[string]bool{}, map[string]int{}, false
	for line := range strings.Lines(string(text)) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		id := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, strings.TrimSpace(heading))
		if n := seen[id]; n > 0 {
			ids[fmt.Sprintf("%s-%d", id, n)] = true
		} else {
			ids[id] = true
		}
		seen[id]++
	}
	return ids
}
