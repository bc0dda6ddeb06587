package document

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// TestLongIdentifierKeepsItsDataset (issue 25 D7): a data.json dataset whose identifier is over
// harvest.MaxIdentifierBytes is an IdentifierTooLong error row, and a live dataset stored under
// that identifier before the cap is kept, not deleted; one too long for any store to hold
// (over harvest.MaxKeptIdentifierBytes) is not saved as seen.
func TestLongIdentifierKeepsItsDataset(t *testing.T) {
	t.Parallel()
	long := "urn:x:" + strings.Repeat("l", harvest.MaxIdentifierBytes)     // between the two caps
	huge := "urn:x:" + strings.Repeat("h", harvest.MaxKeptIdentifierBytes) // past both
	doc := fmt.Sprintf(`{"dataset":[{"identifier":"ok","title":"OK"},{"identifier":%q,"title":"Long"},`+
		`{"identifier":%q,"title":"Huge"}]}`, long, huge)
	r := runExtract(t, []byte(doc), []string{long})
	require.NoError(t, r.err)
	require.Equal(t, []string{"ok"}, identifiers(r.records(t)))
	var clipped []string
	for _, s := range r.settled(t) {
		for _, e := range s.Errors {
			if e.Type == "IdentifierTooLong" {
				clipped = append(clipped, s.Identifier)
			}
		}
	}
	require.ElementsMatch(t, []string{harvest.ClipIdentifier(long), harvest.ClipIdentifier(huge)}, clipped)
	require.Empty(t, r.unseen(t), "the long identifier's dataset is in the source: it must not be deleted")
}
