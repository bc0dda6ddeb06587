package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// TestHarvestPrecedenceFlag: --precedence is kept with the source; a later run without it keeps
// it, and --organization (which moves the source) keeps it and the source's settings; a run with
// it replaces it.
func TestHarvestPrecedenceFlag(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := newHeaderCatalog(t)
	url := srv.URL + "/data.json"
	stored := func() *store.Source {
		src, err := sources.ByURL(context.Background(), b.st, url)
		require.NoError(t, err)
		return src
	}
	_, code := b.harvest(t, "--url", url, "--schema-type", federal, "--precedence", "-10", "--accept", "application/json")
	require.Equal(t, exitOK, code)
	require.Equal(t, -10, stored().Precedence)

	_, code = b.harvest(t, "--url", url, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, -10, stored().Precedence, "a run without --precedence keeps it")

	_, code = b.harvest(t, "--url", url, "--schema-type", federal, "--organization", "Aggregator Inc.")
	require.Equal(t, exitOK, code)
	src := stored()
	require.NotEmpty(t, src.OrganizationID)
	require.Equal(t, -10, src.Precedence, "attaching the organization keeps the precedence")
	require.Equal(t, "application/json", src.Accept, "and the source's settings")

	_, code = b.harvest(t, "--url", url, "--schema-type", federal, "--precedence", "25")
	require.Equal(t, exitOK, code)
	require.Equal(t, 25, stored().Precedence)
}

// TestHarvestBadPrecedence: a --precedence that is not a whole number, or is out of range, is a
// usage error naming the flag, and writes nothing.
func TestHarvestBadPrecedence(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for value, want := range map[string]string{
		"high":  `--precedence: "high" is not a whole number: want one from -1000 to 1000 (higher wins a cross-source duplicate)`,
		"1.5":   `--precedence: "1.5" is not a whole number`,
		"1001":  "--precedence: 1001 is out of range: want a whole number from -1000 to 1000 (higher wins a cross-source duplicate)",
		"-9999": "--precedence: -9999 is out of range",
		" 25 ":  `--precedence: " 25 " is not a whole number`,
		"+5":    `--precedence: "+5" is not a whole number`,
	} {
		code, _, stderr := runCmd("harvest", "--url", "https://agency.example.gov/data.json", "--schema-type", federal,
			"--precedence", value, "--database-url", b.dbURL, "--nats-url", b.natsURL)
		require.Equal(t, exitUsage, code, "%s: %s", value, stderr)
		require.Contains(t, stderr, want, value)
	}
	_, total, err := b.st.SourceList(context.Background(), &store.SourceListParams{})
	require.NoError(t, err)
	require.Zero(t, total, "nothing written")
}
