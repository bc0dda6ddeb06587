package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// TestPruneCommand runs `harvester prune` on both setups after a harvest and a force harvest
// (which supersedes every record of the first): a dry run counts what the prune then deletes
// and deletes nothing; a second prune finds nothing; a harvest after it finds every record
// unchanged and deletes nothing; retention 0 prunes nothing.
func TestPruneCommand(t *testing.T) {
	t.Parallel()
	for name, services := range map[string][]string{
		"embedded": {"--database-url", "", "--nats-url", "", "--data-dir", t.TempDir()},
		"external": {"--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t), "--data-dir", t.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := corpustest.NewServer(t)
			srv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json"))
			harvest := append([]string{"harvest", "--url", srv.URL(), "--schema-type", federal}, services...)
			first := runJSON(t, harvest...)
			require.NotZero(t, first.Added)
			forced := runJSON(t, append(harvest, "--job-type", "force_harvest")...)
			require.Equal(t, first.Added, forced.Updated)

			prune := func(args ...string) pruneJSON {
				t.Helper()
				code, stdout, stderr := runCmd(append(append([]string{"prune", "--format", "json"}, services...), args...)...)
				require.Equal(t, exitOK, code, stderr)
				var rep pruneJSON
				require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
				return rep
			}
			none := prune("--retention", "0")
			require.Zero(t, none.Total)
			require.Nil(t, none.Before)
			// 1ns: everything written so far is older than the retention.
			dry := prune("--retention", "1ns", "--dry-run")
			require.True(t, dry.DryRun)
			require.Equal(t, first.Added, dry.Rows["harvest_record"], "the first job's records, superseded by the force harvest's")
			require.Zero(t, dry.Rows["harvest_job"], "a source's 20 newest jobs stay")
			require.Equal(t, dry.Rows, prune("--retention", "1ns", "--dry-run").Rows, "a dry run deleted nothing")
			real := prune("--retention", "1ns")
			require.False(t, real.DryRun)
			require.Equal(t, dry.Rows, real.Rows)
			require.Equal(t, dry.Total, real.Total)
			require.Zero(t, prune("--retention", "1ns").Total, "a second prune finds nothing")

			again := runJSON(t, harvest...)
			require.Equal(t, [5]int{0, 0, 0, forced.Updated, forced.Errored},
				[5]int{again.Added, again.Updated, again.Deleted, again.Unchanged, again.Errored},
				"a harvest after the prune finds every record as it was")
		})
	}
}

// TestPruneCommandUsage: a retention or format that does not parse is a usage error that
// names it.
func TestPruneCommandUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--retention", "-1d"}, "not a retention such as 90d, 36h or 0"},
		{[]string{"--retention", "ninety days"}, "not a retention such as 90d, 36h or 0"},
		{[]string{"--format", "xml"}, `--format: "xml" is not text or json`},
	} {
		code, _, stderr := runCmd(append([]string{"prune", "--database-url", "", "--data-dir", dir}, c.args...)...)
		require.Equal(t, exitUsage, code, stderr)
		require.Contains(t, stderr, c.want)
	}
}

// TestParseRetention: days, Go durations and 0 read; formatRetention writes what it reads.
func TestParseRetention(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"90d": "90d", "0": "0", "36h": "36h0m0s", "48h": "2d", "2m": "2m0s", "0d": "0"} {
		d, err := parseRetention(in)
		require.NoError(t, err, in)
		require.Equal(t, want, formatRetention(d), in)
	}
}
