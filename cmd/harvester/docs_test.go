package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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

// The README's two commands: a harvest of the sample catalog, and the tests (what .ci/run runs).
const (
	readmeHarvest = `go run ./cmd/harvester harvest --file examples/agency-sample.data.json --schema-type "dcatus1.1: federal"`
	readmeTest    = "scripts/test.sh"
)

// TestReadmeFrontPage: the README is a front page of at most 400 lines holding the two commands
// (run a harvest, run the tests) as lines of their own, and .ci/run runs that test command.
func TestReadmeFrontPage(t *testing.T) {
	text, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	require.LessOrEqual(t, len(lines), 400, "the README is a front page: move the details to docs/")
	for _, command := range []string{readmeHarvest, readmeTest} {
		require.True(t, slices.Contains(lines, command), "the README holds the line %s", command)
	}
	ci, err := os.ReadFile("../../.ci/run")
	require.NoError(t, err)
	require.Contains(t, string(ci), "bash "+readmeTest, ".ci/run runs the README's test command")
}

// TestDocsCommandsExist: every harvester command line written in README.md and docs/*.md (a line
// of a code block that starts with "harvester ", "./harvester " or "go run ./cmd/harvester", or an inline code span
// that starts with "harvester ") names commands of the CLI and flags those commands take; every
// flag of a configuration table row ("| `--flag` |") is a flag of some command. Other tools'
// lines (curl, kubectl, go run ./bench) are not read.
func TestDocsCommandsExist(t *testing.T) {
	root := rootCommand()
	allFlags := map[string]bool{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.Flags().VisitAll(func(f *pflag.Flag) { allFlags[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { allFlags[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)

	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	pages = append(pages, "../../README.md")
	span := regexp.MustCompile("`(harvester [^`]+)`")
	tableFlag := regexp.MustCompile("^\\| `--([a-z0-9-]+)`")
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		var lines []string
		var inCode []bool
		var block []int            // the fenced block of each line (0: none)
		prompted := map[int]bool{} // blocks written as a session: "$ command", then its output
		pending, fenced, blocks := "", false, 0
		for line := range strings.Lines(string(text)) {
			line = strings.TrimRight(line, "\n")
			if strings.HasPrefix(line, "```") {
				if fenced = !fenced; fenced {
					blocks++
				}
			}
			if cont, ok := strings.CutSuffix(line, "\\"); ok && fenced { // a shell line continued on the next
				pending += cont + " "
				continue
			}
			b := 0
			if fenced {
				b = blocks
				prompted[b] = prompted[b] || strings.HasPrefix(line, "$ ")
			}
			lines, inCode, block, pending = append(lines, pending+line), append(inCode, fenced), append(block, b), ""
		}
		for n, line := range lines {
			if prompted[block[n]] { // in a session, the commands are the prompted lines; the rest is output
				cmd, ok := strings.CutPrefix(line, "$ ")
				if !ok {
					continue
				}
				line = cmd
			}
			where := fmt.Sprintf("%s: %s", filepath.Base(page), line)
			if m := tableFlag.FindStringSubmatch(line); m != nil {
				require.True(t, allFlags[m[1]], "%s: no command has the flag --%s", where, m[1])
				checked++
			}
			trimmed := strings.TrimSpace(line)
			var commands []string
			for _, prefix := range []string{"harvester ", "./harvester ", "go run ./cmd/harvester "} {
				if rest, ok := strings.CutPrefix(trimmed, prefix); ok && inCode[n] {
					commands = append(commands, rest)
				}
			}
			for _, m := range span.FindAllStringSubmatch(line, -1) {
				commands = append(commands, strings.TrimPrefix(m[1], "harvester "))
			}
			for _, args := range commands {
				checkCommandLine(t, root, args, fmt.Sprintf("%s (line %d of the joined text)", where, n+1))
				checked++
			}
		}
	}
	require.Greater(t, checked, 50, "the docs' command lines were read")
}

// checkCommandLine resolves args (what follows "harvester") against the command tree: words
// name subcommands while the command has any, and every --flag must be one the command found
// takes. Shell syntax ends the command (a comment, a pipe, ;, &, a redirection).
func checkCommandLine(t *testing.T, root *cobra.Command, args, where string) {
	t.Helper()
	cmd := root
	for _, word := range strings.Fields(args) {
		if strings.HasPrefix(word, "#") || strings.ContainsAny(word[:1], "|;&><") {
			break
		}
		word = strings.Trim(word, "[]()\"',.")
		if flagName, ok := strings.CutPrefix(word, "--"); ok {
			flagName, _, _ = strings.Cut(flagName, "=")
			if flagName == "" {
				continue
			}
			require.True(t, cmd.Flags().Lookup(flagName) != nil || cmd.InheritedFlags().Lookup(flagName) != nil,
				"%s: %q takes no flag --%s", where, cmd.CommandPath(), flagName)
			continue
		}
		if strings.HasPrefix(word, "-") || !cmd.HasSubCommands() {
			continue
		}
		sub, _, err := cmd.Find([]string{word})
		require.True(t, err == nil && sub != cmd, "%s: %q has no command %q", where, cmd.CommandPath(), word)
		cmd = sub
	}
}
