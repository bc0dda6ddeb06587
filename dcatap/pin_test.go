package dcatap

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// pinnedHashes is testdata/source_hashes.golden: the GraphHash of every corpus file and the
// source_hash of each of its records, as stored by earlier releases. Harvester stores record
// source_hashes and graph fingerprints, so a change here makes every stored record of such a
// source "updated" on its next harvest: regenerate the file (HARVESTER_UPDATE_GOLDEN=1) only
// for a deliberate, documented change.
const pinnedHashes = "testdata/source_hashes.golden"

func TestSourceHashesPinned(t *testing.T) {
	files, err := os.ReadDir(filepath.Join(corpustest.Dir(t), "dcatap"))
	require.NoError(t, err)
	var lines []string
	for _, f := range files {
		name := f.Name()
		if strings.HasPrefix(name, "INVALID-") {
			continue
		}
		g := parseCorpus(t, name)
		gh, err := GraphHash(g)
		require.NoError(t, err)
		lines = append(lines, fmt.Sprintf("%s graph %s", name, gh))
		_, order := splitAll(t, g)
		for _, r := range order {
			if r.Problem != "" {
				continue
			}
			nq, _, err := Canonical(r.Triples)
			require.NoError(t, err)
			lines = append(lines, fmt.Sprintf("%s %s %s %s", name, r.Kind, r.IRI, SourceHash(r.IRI, nq)))
		}
	}
	slices.Sort(lines)
	got := strings.Join(lines, "\n") + "\n"
	if os.Getenv("HARVESTER_UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(pinnedHashes, []byte(got), 0o644))
	}
	want, err := os.ReadFile(pinnedHashes)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}
