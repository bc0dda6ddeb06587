package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// TestHarvestCSWCapabilitiesURLIsTheSource: a csw source's URL pasted as a GetCapabilities (or
// GetRecords) request, its CSW parameters in any case, is the catalogue's one source
// (harvest.CSWBaseURL): the harvest finds it rather than creating a second source that would
// store every dataset again. Another parameter makes another source. (The test's server is no
// CSW, so each job fails; the source it ran for is what is checked.)
func TestHarvestCSWCapabilitiesURLIsTheSource(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.srv.Serve(corpustest.Path(t, "dcatus/datagov-cftc.data.json"))
	endpoint := strings.TrimSuffix(b.srv.URL(), "/data.json") + "/csw"
	first, _ := b.harvest(t, "--source-type", "csw", "--url", endpoint)
	require.NotEmpty(t, first.SourceID)
	for _, u := range []string{endpoint + "?SERVICE=CSW&REQUEST=GetCapabilities&VERSION=2.0.2",
		endpoint + "?service=csw&request=GetCapabilities&AcceptVersions=2.0.2,3.0.0#top",
		endpoint + "?request=GetRecords&typeNames=csw:Record&elementSetName=full&outputSchema=" +
			"http://www.isotc211.org/2005/gmd&startPosition=1&maxRecords=10&resultType=results"} {
		rep, _ := b.harvest(t, "--source-type", "csw", "--url", u)
		require.Equal(t, first.SourceID, rep.SourceID, "%s is the catalogue's source", u)
	}
	src, err := b.st.SourceGet(ctx, first.SourceID)
	require.NoError(t, err)
	require.Equal(t, endpoint, src.URL)

	legacy, err := b.st.SourceInsert(ctx, &store.SourceInsertParams{Name: "legacy", URL: endpoint + "2?SERVICE=CSW&REQUEST=GetCapabilities",
		SourceType: harvest.SourceCSW, SchemaType: harvest.SchemaISO19115_1, Frequency: harvest.FrequencyManual,
		NotificationFrequency: harvest.NotifyOnError})
	require.NoError(t, err)
	rep, _ := b.harvest(t, "--source-type", "csw", "--url", endpoint+"2")
	require.Equal(t, legacy.ID, rep.SourceID, "a source stored with the parameters is found by its endpoint")

	rep, _ = b.harvest(t, "--source-type", "csw", "--url", endpoint+"?portal=srv&service=CSW")
	require.NotEqual(t, first.SourceID, rep.SourceID, "another parameter makes another source")
	other, err := b.st.SourceGet(ctx, rep.SourceID)
	require.NoError(t, err)
	require.Equal(t, endpoint+"?portal=srv", other.URL)
	_, total, err := b.st.SourceList(ctx, &store.SourceListParams{})
	require.NoError(t, err)
	require.Equal(t, 3, total)
}
