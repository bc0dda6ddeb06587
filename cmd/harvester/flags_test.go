package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

var updateDocs = flag.Bool("update", false, "write docs/configuration.md from flagTable")

// commandFlags is every command of the tree with each of its flags.
func commandFlags() map[string][]*pflag.Flag {
	out := map[string][]*pflag.Flag{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { out[c.CommandPath()] = append(out[c.CommandPath()], f) })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(rootCommand())
	return out
}

// TestFlagTable: flagTable's ids are unique; each row with a flag is registered by some
// command, with the row's help and note; a flag whose help names an environment variable is a
// row's (so each variable is written once, in the table); and no file of the binary reads a
// variable by a name written in place (os.Getenv("…")), but Go's own GOGC and GOMEMLIMIT.
func TestFlagTable(t *testing.T) {
	t.Parallel()
	ids, usages := map[string]bool{}, map[string]bool{}
	for _, s := range flagTable {
		require.False(t, ids[s.id], "row %s twice", s.id)
		ids[s.id] = true
		usages[spec(s.id).usage()] = true
	}
	registered := map[string]bool{}
	envNote := regexp.MustCompile(`\benv [A-Z_]+`)
	for cmd, flags := range commandFlags() {
		for _, f := range flags {
			registered[f.Name+"\x00"+f.Usage] = true
			if envNote.MatchString(f.Usage) {
				require.True(t, usages[f.Usage], "%s --%s names a variable but is no flagTable row's: %q", cmd, f.Name, f.Usage)
			}
		}
	}
	for _, s := range flagTable {
		s = spec(s.id)
		if s.flag == "-" {
			continue
		}
		require.True(t, registered[s.flag+"\x00"+s.usage()], "row %s: no command registers --%s", s.id, s.flag)
	}

	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Value != `"GOGC"` && lit.Value != `"GOMEMLIMIT"` {
				t.Errorf("%s reads %s by name: give it a flagTable row and read it with envName or the env* methods",
					name, lit.Value)
			}
			return true
		})
	}
}

// TestFlagTableEnvironment: a row's variable gives its flag's default (an unreadable one is
// TestUnreadableEnvIsAnError's); a secret row's never does, as the help prints the default.
func TestFlagTableEnvironment(t *testing.T) {
	t.Setenv("HARVESTER_MAX_JOBS", "7")
	t.Setenv("HARVESTER_FETCH_TIMEOUT", "3m")
	t.Setenv("HARVESTER_AUTH_HEADER", "Authorization: Bearer s3cret")
	cmd := serveCommand()
	require.Equal(t, "7", cmd.Flags().Lookup("max-jobs").DefValue)
	require.Equal(t, "3m0s", cmd.Flags().Lookup("fetch-timeout").DefValue)
	require.Empty(t, harvestCommand().Flags().Lookup("auth-header").DefValue)
}

// scriptVariables are the HARVESTER_* variables the docs name that are not the binary's: the
// test and service scripts', the benchmarks', the crash tests'.
var scriptVariables = regexp.MustCompile(`^HARVESTER_(TEST_\w+|SERVICES_DIR|PG_PORT|NATS_PORT|OPENSEARCH_PORT|` +
	`OPENSEARCH_VERSION|BENCH_\w+|PROMTOOL|PROMETHEUS|LONG_TESTS|CRASH_SEED|CLUSTER_RUNS)$`)

// TestDocsEnvironmentVariables: every HARVESTER_* variable the README and docs/*.md name is a
// flagTable row's (or a script's), so the docs name no variable the binary does not read.
func TestDocsEnvironmentVariables(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, s := range flagTable {
		known[s.env] = true
	}
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	pages = append(pages, "../../README.md")
	variable := regexp.MustCompile(`\bHARVESTER_[A-Z0-9_]*[A-Z0-9]\b`)
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, v := range variable.FindAllString(string(text), -1) {
			require.True(t, known[v] || scriptVariables.MatchString(v), "%s names %s, which no flagTable row has",
				filepath.Base(page), v)
		}
	}
}

// TestConfigurationPage: docs/configuration.md is the table's, as configurationPage writes it
// (`go test ./cmd/harvester -run TestConfigurationPage -update` writes it again).
func TestConfigurationPage(t *testing.T) {
	t.Parallel()
	page := configurationPage(commandFlags())
	const path = "../../docs/configuration.md"
	if *updateDocs {
		require.NoError(t, os.WriteFile(path, []byte(page), 0o644))
	}
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, page, string(text), "docs/configuration.md is generated: go test ./cmd/harvester -run TestConfigurationPage -update")
}

// configurationPage is docs/configuration.md: every flagTable row with the commands that take
// its flag, then the settings given by environment only.
func configurationPage(flags map[string][]*pflag.Flag) string {
	var b strings.Builder
	b.WriteString("# Configuration: flags and environment variables\n\n" +
		"Generated from the binary's table of settings (`flagTable`, `cmd/harvester/flags.go`) by\n" +
		"`go test ./cmd/harvester -run TestConfigurationPage -update`; do not edit it by hand. Each command's\n" +
		"own `--help` lists the flags it takes, with these texts. An environment variable gives its flag's\n" +
		"default; a value that does not parse stops the command (exit status 2) naming the variable.\n\n" +
		"| flag | environment | default | commands | what it does |\n| --- | --- | --- | --- | --- |\n")
	cell := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
	for _, s := range flagTable {
		s = spec(s.id)
		if s.flag == "-" {
			continue
		}
		var commands []string
		def := defaultOf(s)
		for cmd, fs := range flags {
			for _, f := range fs {
				if f.Name == s.flag && f.Usage == s.usage() {
					commands = append(commands, "`"+strings.TrimPrefix(cmd, "harvester ")+"`")
				}
			}
		}
		slices.Sort(commands)
		env := ""
		if s.env != "" {
			env = "`" + s.env + "`"
		}
		b.WriteString("| `--" + s.flag + "` | " + env + " | " + cell(def) + " | " + strings.Join(commands, ", ") + " | " +
			cell(s.help) + " |\n")
	}
	b.WriteString("\nSettings given by environment only:\n\n| environment | what it does |\n| --- | --- |\n")
	for _, s := range flagTable {
		if s.flag == "-" {
			b.WriteString("| `" + s.env + "` | " + cell(s.help) + " |\n")
		}
	}
	return b.String()
}

// defaultOf is the default the page shows, whatever the test's environment: the row's note, or
// its def as the flag prints it.
func defaultOf(s flagSpec) string {
	if s.note != "" {
		return strings.TrimPrefix(strings.TrimPrefix(s.note, "default: "), "default ")
	}
	if d := fmt.Sprint(s.def); d != "" {
		return "`" + d + "`"
	}
	return ""
}
