// Package designtest holds the code to the rules of DESIGN.md that no compiler checks: which
// package may import which (its "nevers") and how large files and functions may grow. It has
// only tests. The imports come from `go list -deps -json ./...` (no network: the module's own
// packages and the module cache), the sizes from go/parser over the module's files.
package designtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/harvester-dev/harvester/harvest"
)

const module = "github.com/harvester-dev/harvester"

// listed is one package as `go list -json` describes it (non-test files only).
type listed struct {
	ImportPath string
	Dir        string
	Standard   bool
	Module     *struct{ Path string }
	GoFiles    []string
	Imports    []string
}

// modulePackages lists every package of the module with what its non-test files import.
func modulePackages(t *testing.T) map[string]*listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]*listed{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = &p
	}
	if len(pkgs) < 50 || pkgs[module+"/harvest"] == nil {
		t.Fatalf("go list named %d packages, without harvest", len(pkgs))
	}
	return pkgs
}

// rel is path within the module ("stages/extract"), or "" for a package outside it.
func rel(path string) string {
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return rest
	}
	return ""
}

// under reports whether the module path p is dir or below it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// stageOf is the stage a module path belongs to ("extract" for stages/extract/portal/portaltest), or "".
func stageOf(p string) string {
	rest, ok := strings.CutPrefix(p, "stages/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// chains returns, for each package from reaches, the shortest import chain to it
// ("stages/compare -> jobs -> router"), following the non-test imports.
func chains(pkgs map[string]*listed, from string) map[string]string {
	seen := map[string]string{from: rel(from)}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if pkgs[p] == nil {
			continue
		}
		for _, imp := range pkgs[p].Imports {
			if _, ok := seen[imp]; ok {
				continue
			}
			name := rel(imp)
			if name == "" {
				name = imp
			}
			seen[imp] = seen[p] + " -> " + name
			queue = append(queue, imp)
		}
	}
	return seen
}

// stageNevers are the packages no stage links: the control plane, the transport, the HTTP
// faces, and the runner that wires stages to the transport.
var stageNevers = []string{"jobs", "router", "api", "web", "pipeline", "scheduler", "cmd"}

// TestStagesTalkOnlyThroughMessages holds DESIGN.md's "nevers" for the stages: a stage
// package (stages/<name> and the packages under it) links no other stage and none of
// stageNevers, directly or through another package. A stage that must end a job returns a
// harvest.JobFailure and its runner in pipeline hands it to jobs.
func TestStagesTalkOnlyThroughMessages(t *testing.T) {
	t.Parallel()
	pkgs := modulePackages(t)
	stages := 0
	for path := range pkgs {
		stage := stageOf(rel(path))
		if stage == "" {
			continue
		}
		stages++
		for dep, chain := range chains(pkgs, path) {
			d := rel(dep)
			if other := stageOf(d); other != "" && other != stage {
				t.Errorf("stage %s links stage %s: %s (stages talk only through messages)", stage, other, chain)
			}
			for _, never := range stageNevers {
				if d != "" && under(d, never) {
					t.Errorf("stage %s links %s: %s (a stage returns a harvest.JobFailure; its runner "+
						"hands it to jobs)", stage, never, chain)
				}
			}
		}
	}
	if stages < 6 {
		t.Fatalf("found %d stage packages, want every stages/... package", stages)
	}
}

// TestHarvestIsALeaf holds that harvest, the vocabulary every package shares, links nothing of
// the module but internal/iri, and that no file of it imports watermill: its Message and the
// stage contract (BatchHandler) are its own, and router turns them into NATS messages.
func TestHarvestIsALeaf(t *testing.T) {
	t.Parallel()
	pkgs := modulePackages(t)
	h := pkgs[module+"/harvest"]
	for dep, chain := range chains(pkgs, h.ImportPath) {
		if d := rel(dep); d != "" && d != "harvest" && d != "internal/iri" {
			t.Errorf("harvest links %s: %s (harvest is the shared vocabulary, a leaf)", d, chain)
		}
	}
	for _, name := range h.GoFiles {
		imports := fileImports(t, h.Dir+"/"+name)
		if slices.ContainsFunc(imports, func(p string) bool {
			return under(p, "github.com/ThreeDotsLabs/watermill")
		}) {
			t.Errorf("harvest/%s imports watermill: harvest is vocabulary only (the transport's types stay "+
				"in router and pipeline)", name)
		}
	}
}

// TestExtractFamiliesStayApart holds EXTRACT's layout: each family of source types
// (harvest.Families: stages/extract/<family> and the packages under it) links the extract core
// and no other family, and the core (stages/extract itself) links no family; Handle picks a
// family's lister from those pipeline registers (extract.Config.Listers).
func TestExtractFamiliesStayApart(t *testing.T) {
	t.Parallel()
	pkgs := modulePackages(t)
	familyOf := func(p string) string {
		rest, ok := strings.CutPrefix(p, "stages/extract/")
		if !ok {
			return ""
		}
		name, _, _ := strings.Cut(rest, "/")
		if slices.Contains(harvest.Families(), harvest.Family(name)) {
			return name
		}
		return ""
	}
	families := map[string]bool{}
	for path := range pkgs {
		p := rel(path)
		family := familyOf(p)
		if family == "" && p != "stages/extract" {
			continue
		}
		families[family] = true
		for dep, chain := range chains(pkgs, path) {
			if other := familyOf(rel(dep)); other != "" && other != family {
				t.Errorf("%s links family %s: %s (a family links the extract core only)", p, other, chain)
			}
		}
	}
	for _, f := range harvest.Families() {
		if !families[string(f)] {
			t.Errorf("family %s has no package stages/extract/%s", f, f)
		}
	}
}

// sourcesNevers are the packages sources (the administration of sources and organizations)
// never links: the HTTP faces and the binary that call it, the control plane, the transport
// and the runner.
var sourcesNevers = []string{"api", "web", "cmd", "jobs", "router", "pipeline", "scheduler"}

// TestSourcesIsAdministrationOnly holds sources' place: api, web and jobs (and cmd through jobs) call it, so it
// links no stage (a stage decides nothing of a source's administration) and none of
// sourcesNevers, directly or through another package.
func TestSourcesIsAdministrationOnly(t *testing.T) {
	t.Parallel()
	pkgs := modulePackages(t)
	src := pkgs[module+"/sources"]
	if src == nil {
		t.Fatal("go list names no package sources")
	}
	for dep, chain := range chains(pkgs, src.ImportPath) {
		d := rel(dep)
		if stage := stageOf(d); stage != "" {
			t.Errorf("sources links stage %s: %s", stage, chain)
		}
		for _, never := range sourcesNevers {
			if d != "" && under(d, never) {
				t.Errorf("sources links %s: %s (api, web, cmd and jobs call sources, never the other way)", never, chain)
			}
		}
	}
	for _, caller := range []string{"api", "web", "jobs"} {
		if p := pkgs[module+"/"+caller]; p == nil || !slices.Contains(p.Imports, module+"/sources") {
			t.Errorf("%s does not import sources: it administers sources through it", caller)
		}
	}
}
