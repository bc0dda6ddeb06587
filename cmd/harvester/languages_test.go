package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// --languages (env HARVESTER_LANGUAGES, default en) reaches the pipeline's Config as a list;
// a value that is not a list of language tags is a usage error.
func TestLanguagesFlag(t *testing.T) {
	parse := func(args ...string) *serviceFlags { return parseServiceFlags(t, args...) }
	require.Equal(t, []string{"en"}, parse().config(nil).Languages)
	require.Equal(t, []string{"nb", "nn", "en"}, parse("--languages", "nb, nn,EN").config(nil).Languages)
	t.Setenv("HARVESTER_LANGUAGES", "sv")
	require.Equal(t, []string{"sv"}, parse().config(nil).Languages)
	_, err := parse("--languages", "en;nb").logger()
	require.ErrorContains(t, err, `--languages: "en;nb" is not a language tag`)

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"harvest", "--url", "https://x.example/c.ttl", "--schema-type", "dcatus1.1: federal",
		"--languages", "en_GB"}, &out, &errOut)
	require.Equal(t, exitUsage, code, errOut.String())
	require.Contains(t, errOut.String(), `--languages: "en_GB" is not a language tag`)
}
