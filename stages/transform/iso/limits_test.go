package iso

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A record nested deeper than MaxDepth, or holding more than MaxElements elements, is an
// ErrLimit error naming the limit, not a walk of whatever it holds; one just within them parses.
func TestLimits(t *testing.T) {
	const head = `<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd">`
	deep := func(n int) []byte {
		return []byte(head + strings.Repeat("<gmd:a>", n) + strings.Repeat("</gmd:a>", n) + `</gmd:MD_Metadata>`)
	}
	_, err := parse(deep(MaxDepth - 1))
	require.NoError(t, err, "the root and %d nested elements are within the depth", MaxDepth-1)
	_, err = parse(deep(100_000))
	require.True(t, errors.Is(err, ErrLimit), "%v", err)
	require.Contains(t, err.Error(), "nested more than 256 deep")

	wide := []byte(head + strings.Repeat("<gmd:b/>", MaxElements) + `</gmd:MD_Metadata>`)
	_, err = parse(wide)
	require.True(t, errors.Is(err, ErrLimit), "%v", err)
	require.Contains(t, err.Error(), "more than 1000000 elements")

	_, _, err = Transform(deep(100_000), "https://example.gov/deep.xml", "")
	require.True(t, errors.Is(err, ErrLimit), "Transform says so too: %v", err)
}
