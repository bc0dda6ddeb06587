package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// TestServeRefusesLocalFiles: a source stored with a local file as its url (as import-h2 and
// the API refuse to store one, but an older import did) is not read by serve: its job fails
// with a job error naming the path, and nothing of the file is published or stored. file://
// urls are refused too.
func TestServeRefusesLocalFiles(t *testing.T) {
	t.Parallel()
	dbURL, natsURL := dbtest.URL(t), natstest.URL(t)
	startServe(t, freeAddr(t), "--database-url", dbURL, "--nats-url", natsURL, "--data-dir", t.TempDir(),
		"--log-level", "error")
	secret := filepath.Join(t.TempDir(), "passwd")
	require.NoError(t, os.WriteFile(secret, []byte(`{"dataset": [{"identifier": "SECRET-1", "title": "SECRET"}]}`), 0o600))
	ctx := context.Background()
	st := dbtest.Open(t, dbURL)
	bus, err := router.Connect(ctx, natsURL)
	require.NoError(t, err)
	defer bus.Close()
	for _, url := range []string{secret, "file://" + secret} {
		job, err := jobs.Control{Store: st, Publisher: bus.Publisher()}.Start(ctx, jobs.Params{URL: url, SourceType: harvest.SourceDocument,
			SchemaType: harvest.SchemaDCATUS11Federal, JobType: harvest.JobHarvest})
		require.NoError(t, err, url)
		wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		job, err = jobs.Wait(wctx, st, job.ID, 20*time.Millisecond)
		cancel()
		require.NoError(t, err, url)
		require.Equal(t, harvest.JobError, job.Status, url)
		errs, err := st.JobErrorList(ctx, job.ID)
		require.NoError(t, err)
		require.Len(t, errs, 1, url)
		require.Contains(t, errs[0].Message, url, "the job error names the location")
		require.NotContains(t, errs[0].Message, "SECRET", "nothing of the file")
		n, err := st.DatasetCount(ctx, job.SourceID)
		require.NoError(t, err)
		require.Zero(t, n, url)
	}
}
