package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// The source keeps its WAF time zone from one CLI run to the next; an unknown zone is a usage
// error that writes nothing.
func TestHarvestWAFTimeZoneFlag(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"harvest", "--url", "https://waf.example.gov/waf/", "--source-type", "waf",
		"--schema-type", "iso19115_2", "--waf-time-zone", "Mars/Olympus"}, &out, &errOut)
	require.Equal(t, 2, code)
	require.Contains(t, errOut.String(), `--waf-time-zone: unknown time zone "Mars/Olympus": want an IANA time zone name`)
	errOut.Reset()
	code = run(context.Background(), []string{"harvest", "--url", "https://agency.example.gov/data.json",
		"--schema-type", "dcatus1.1: federal", "--waf-time-zone", "UTC"}, &out, &errOut)
	require.Equal(t, 2, code)
	require.Contains(t, errOut.String(), "--waf-time-zone: only a waf or waf-collection source has one, not a document source")
}
