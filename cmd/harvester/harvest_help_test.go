package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// harvest --help names FGDC and csw where it says what a source and a file may be, and its
// --source-type lists every row of the source rule table with what it is.
func TestHarvestHelpNamesFGDCAndCSW(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run(context.Background(), []string{"harvest", "--help"}, &out, &errOut), errOut.String())
	help := out.String()
	long, flags, ok := strings.Cut(help, "Flags:")
	require.True(t, ok)
	require.Contains(t, long, "FGDC CSDGM XML file")
	require.Contains(t, long, "--source-type csw")
	_, file, _ := strings.Cut(flags, "--file string")
	file, _, _ = strings.Cut(file, "\n")
	require.Contains(t, file, "FGDC")
	_, st, _ := strings.Cut(flags, "--source-type string")
	for _, spec := range harvest.SourceSpecs {
		require.Contains(t, st, string(spec.Type)+": "+spec.What)
	}
}
