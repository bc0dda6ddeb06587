package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// --max-delete-share is a share in (0, 1]: 0 is a usage error.
func TestMaxDeleteShareFlag(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, code := b.harvestURL(t, federal, "--max-delete-share", "0")
	require.Equal(t, exitUsage, code, "the share is in (0, 1]")
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
