package extract_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// TestSettingNamesAreInTheRuleTable: every setting EXTRACT reads (extract.Setting and
// extract.PageSize, with the name written out) is a setting of a source type of the family whose
// package reads it (harvest.SourceSpecs), so its default and its check are the table's; and no
// family reads a source's options other than through them.
func TestSettingNamesAreInTheRuleTable(t *testing.T) {
	read := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		family := harvest.Family(filepath.Base(filepath.Dir(path))) // "." for the core
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.IndexExpr:
				if sel, ok := n.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Options" {
					require.Equal(t, "settings.go", path, "%s reads Options by hand: use extract.Setting", path)
				}
			case *ast.CallExpr:
				name, ok := settingRead(n)
				if !ok {
					return true
				}
				read++
				require.True(t, inFamily(family, name), "%s reads setting %q, which no %s source type has", path, name, family)
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, read, 10, "the test found the settings read")
}

// settingRead returns the setting name a call of Setting or PageSize reads, when it is one.
func settingRead(call *ast.CallExpr) (string, bool) {
	var fn string
	switch f := call.Fun.(type) {
	case *ast.Ident:
		fn = f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); !ok || x.Name != "extract" {
			return "", false
		}
		fn = f.Sel.Name
	}
	if (fn != "Setting" && fn != "PageSize") || len(call.Args) < 2 {
		return "", false
	}
	lit, ok := call.Args[1].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	name, err := strconv.Unquote(lit.Value)
	return name, err == nil
}

// inFamily reports whether a source type of family has setting name (any family's type when
// family is the core's, ".").
func inFamily(family harvest.Family, name string) bool {
	for i := range harvest.SourceSpecs {
		spec := &harvest.SourceSpecs[i]
		if (family == "." || spec.Family == family) && spec.Setting(name) != nil {
			return true
		}
	}
	return false
}
