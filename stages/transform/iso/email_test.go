package iso

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// A web address in an e-mail field (gmd:electronicMailAddress) is skipped with a warning, as
// the FGDC mapper skips one in cntemail: the record validates, with the next contact's address
// or the placeholder (issue 34 item 8). EPA's EnviroAtlas record, its two contacts' address
// made the web form a publisher may write there instead.
func TestWebAddressInEmailField(t *testing.T) {
	t.Parallel()
	const form = "https://www.epa.gov/enviroatlas/forms/contact-us-about-enviroatlas"
	record := bytes.ReplaceAll(readCorpus(t, "datagov-valid-iso1-gmd.xml"), []byte("EnviroAtlas@epa.gov"), []byte(form))
	ds, warnings := transformDataset(t, record)
	require.Equal(t, PlaceholderContactEmail, ds.ContactPoint.HasEmail)
	require.Contains(t, warnings, Warning{Field: "contactPoint", Message: SkippedEmail(form)})

	// The address itself is kept, whatever is written around it, lower-cased.
	record = bytes.ReplaceAll(readCorpus(t, "datagov-valid-iso1-gmd.xml"), []byte("EnviroAtlas@epa.gov"),
		[]byte("mailto:EnviroAtlas@epa.gov (EnviroAtlas team)"))
	ds, _ = transformDataset(t, record)
	require.Equal(t, "mailto:enviroatlas@epa.gov", ds.ContactPoint.HasEmail)
}
