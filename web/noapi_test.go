package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPagesCallNoAPIOverHTTP: the pages call the API's typed functions, never the API handler
// in process. The only call of the handler (a server's api field) is (*server).ServeHTTP's,
// which forwards /api/ paths; every non-test file of the package is parsed and checked.
func TestPagesCallNoAPIOverHTTP(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	checked, forwards := 0, 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "ServeHTTP" {
					return true
				}
				if recv, ok := sel.X.(*ast.SelectorExpr); ok && recv.Sel.Name == "api" {
					if fn.Name.Name == "ServeHTTP" && fn.Recv != nil {
						forwards++
					} else {
						t.Errorf("%s: %s calls the API handler in process: call the API's typed functions", name,
							fn.Name.Name)
					}
				}
				return true
			})
		}
		checked++
	}
	require.Greater(t, checked, 10, "the package's files were read")
	require.Equal(t, 1, forwards, "ServeHTTP forwards /api/ paths to the API handler")
}
