package jobs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// jobStatusWrites are the store methods that change a job's status or its counts.
var jobStatusWrites = map[string]bool{"JobFail": true, "JobFinish": true, "JobInsert": true, "JobStartQueued": true,
	"JobRedrive": true, "JobSetExpected": true, "JobImport": true, "OutcomeSettle": true, "OutcomeSettleBatch": true,
	"OutcomeReopen": true}

// TestOnlyJobsChangesJobStatus: the packages that drive jobs from outside the stages (the API,
// the web UI, the binary, the scheduler, the pipeline's wiring, the source administration) call none of the store methods
// that change a job's status; they go through package jobs. `go list` names their non-test
// files; each call's method name is checked.
func TestOnlyJobsChangesJobStatus(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-json", "./api", "./web", "./cmd/harvester", "./scheduler", "./pipeline", "./sources")
	cmd.Dir = ".."
	out, err := cmd.Output()
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(out))
	checked := 0
	for {
		var pkg struct {
			ImportPath, Dir string
			GoFiles         []string
		}
		if err := dec.Decode(&pkg); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		for _, name := range pkg.GoFiles {
			path := filepath.Join(pkg.Dir, name)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			require.NoError(t, err)
			ast.Inspect(f, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && jobStatusWrites[sel.Sel.Name] {
						t.Errorf("%s calls %s: change a job's status through package jobs", path, sel.Sel.Name)
					}
				}
				return true
			})
			checked++
		}
	}
	require.Greater(t, checked, 20, "the packages' files were read")
}
