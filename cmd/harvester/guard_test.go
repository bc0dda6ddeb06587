package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/store"
)

// An agency server that suddenly serves an empty (or mostly empty) catalog does not empty the
// catalog: the harvest fails and deletes nothing (DESIGN rule 1). force_harvest may.
func TestHarvestRefusesToDeleteMostOfASource(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first := b.harvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, 339, first.Added)

	empty := filepath.Join(t.TempDir(), "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte(`{"dataset":[]}`), 0o644))
	b.srv.Serve(empty)
	rep, code := b.harvestURL(t, federal)
	require.Equal(t, exitJobError, code)
	require.Equal(t, "error", rep.Status)
	require.Len(t, rep.JobErrors, 1)
	require.Contains(t, rep.JobErrors[0], "DeleteGuard: the listing would delete 339 of the source's 339 live datasets")
	require.Zero(t, rep.Deleted)
	datasets, err := b.st.DatasetList(ctx, &store.DatasetListParams{SourceID: first.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 339, "nothing was deleted")

	_, code = b.harvestURL(t, federal, "--max-delete-share", "0")
	require.Equal(t, exitUsage, code, "the share is in (0, 1]")

	forced, code := b.harvestURL(t, federal, "--job-type", "force_harvest")
	require.Equal(t, exitOK, code)
	require.Equal(t, 339, forced.Deleted, "a force_harvest is not bound")
}

// A source on a private address is refused unless allowed: the job fails and says why.
func TestPrivateSourcesRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.srv.Serve(corpustest.Path(t, "dcatus/datagov-cftc.data.json"))
	rep, code := b.harvestURL(t, federal, "--allow-private-sources=false")
	require.Equal(t, exitJobError, code)
	require.Len(t, rep.JobErrors, 1)
	require.Contains(t, rep.JobErrors[0], "127.0.0.1 is a loopback address")
	require.Contains(t, rep.JobErrors[0], "refused unless allowed in configuration (--allow-private-sources, HARVESTER_ALLOW_PRIVATE_SOURCES=1)")
}
