package designtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Sizes DESIGN.md keeps a newcomer's reading to, counted in lines of code: lines that are
// neither blank nor only a comment (docstrings are welcome at any length).
const (
	maxFileLines = 500
	maxFuncLines = 80
)

// funcCeilings are the functions longer than maxFuncLines when the rule came in (issue 36),
// each with its length then as its ceiling: they may shrink, never grow; one that shrinks to
// maxFuncLines leaves the list (the test says so).
var funcCeilings = map[string]int{
	"cmd/harvester/read_commands_test.go testReadCommands":          101,
	"search/bleve/search.go Search":                                 88,
	"store/storetest/duplicate.go testCrossSourceDuplicateKeepHold": 112,
	"store/storetest/prune.go testPruneRecords":                     92,
}

// codeLines counts the lines from..to (1-based, inclusive) of lines that hold code, given the
// lines that hold a comment.
func codeLines(lines []string, comment map[int]bool, from, to int) int {
	n := 0
	for l := from; l <= to && l <= len(lines); l++ {
		s := strings.TrimSpace(lines[l-1])
		if s == "" || comment[l] && (strings.HasPrefix(s, "//") || strings.HasPrefix(s, "/*") || s == "*/") {
			continue
		}
		n++
	}
	return n
}

// TestFileAndFunctionSizes: every Go file of the module (tests included, testdata not) holds at
// most maxFileLines lines of code, and every function at most maxFuncLines, but for
// funcCeilings.
func TestFileAndFunctionSizes(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files, seen := 0, map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" ||
			d.Name() == "vendor" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		name, _ := filepath.Rel(root, path)
		name = filepath.ToSlash(name)
		files++
		checkSizes(t, path, name, seen)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 300 {
		t.Fatalf("read %d Go files, want the module's", files)
	}
	for fn, ceiling := range funcCeilings {
		if !seen[fn] {
			t.Errorf("%s (ceiling %d) is gone or within %d lines: take it off funcCeilings", fn, ceiling, maxFuncLines)
		}
	}
}

// checkSizes checks one file, path (name within the module); seen collects the functions of
// funcCeilings still over maxFuncLines.
func checkSizes(t *testing.T, path, name string, seen map[string]bool) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	comment := map[int]bool{}
	for _, g := range f.Comments {
		for l := fset.Position(g.Pos()).Line; l <= fset.Position(g.End()).Line; l++ {
			comment[l] = true
		}
	}
	if n := codeLines(lines, comment, 1, len(lines)); n > maxFileLines {
		t.Errorf("%s has %d lines of code, more than %d: split it", name, n, maxFileLines)
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		n := codeLines(lines, comment, fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line)
		key := name + " " + fd.Name.Name
		ceiling, listed := funcCeilings[key]
		switch {
		case listed && n > ceiling:
			seen[key] = true
			t.Errorf("%s has %d lines of code, more than its ceiling %d (funcCeilings): shorten it", key, n, ceiling)
		case listed && n > maxFuncLines:
			seen[key] = true
		case !listed && n > maxFuncLines:
			t.Errorf("%s has %d lines of code, more than %d: split it", key, n, maxFuncLines)
		}
	}
}

// fileImports is the import paths of the Go file at path.
func fileImports(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}
