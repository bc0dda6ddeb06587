package jobs_test

import (
	"context"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/wmbridge"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

// The job message names the source's organization as the publisher for ISO records that name
// none; a source without one gives no name (never its own name, URL or file path).
func TestStartPublisherName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	ctl, next := startExtract(t, st)
	org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "National Oceanic and Atmospheric Administration", Slug: "noaa"})
	require.NoError(t, err)
	_, err = st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: org.ID, Name: "NOAA WAF",
		URL: "https://noaa.example.gov/waf/", SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaISO19115_2,
		Frequency: harvest.FrequencyManual, NotificationFrequency: harvest.NotifyOnError})
	require.NoError(t, err)

	for _, c := range []struct {
		url        string
		sourceType harvest.SourceType
		want       string
	}{
		{"https://noaa.example.gov/waf/", harvest.SourceWAF, org.Name},
		{"/home/me/record.xml", harvest.SourceDocument, ""},
	} {
		_, err := ctl.Start(ctx, jobs.Params{URL: c.url, SourceType: c.sourceType,
			SchemaType: harvest.SchemaISO19115_2, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		_, job := next()
		require.Equal(t, c.url, job.URL)
		require.Equal(t, c.want, job.PublisherName, c.url)
	}
}

// The job message carries the source's Accept and Options, never its auth header.
func TestStartCarriesAcceptAndOptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	ctl, next := startExtract(t, st)
	job, err := ctl.Start(ctx, jobs.Params{URL: "https://fdk.example.no/catalog.ttl",
		SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP, JobType: harvest.JobHarvest,
		Accept: "text/turtle", AuthHeader: &store.AuthHeader{Name: "Authorization", Value: "Bearer top-secret"},
		Options: map[string]string{"languages": "nb,en"}})
	require.NoError(t, err)
	m, msg := next()
	require.NotContains(t, string(m.Payload), "top-secret")
	for k, v := range m.Metadata {
		require.NotContains(t, v, "top-secret", k)
	}
	require.Equal(t, "text/turtle", msg.Accept)
	require.Equal(t, map[string]string{"languages": "nb,en"}, msg.Options)
	src, err := st.SourceGet(ctx, job.SourceID)
	require.NoError(t, err)
	require.Equal(t, &store.AuthHeader{Name: "Authorization", Value: "Bearer top-secret"}, src.AuthHeader,
		"kept in the store")
}

// startExtract is a Control over st that publishes to an in-memory pub/sub, and next, which
// waits for the next job message it sent to EXTRACT, acks it and decodes it.
func startExtract(t *testing.T, st store.Store) (ctl jobs.Control, next func() (*harvest.Message, harvest.Job)) {
	t.Helper()
	pubsub := gochannel.NewGoChannel(gochannel.Config{OutputChannelBuffer: 10}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pubsub.Close() })
	msgs, err := pubsub.Subscribe(context.Background(), harvest.SubjectExtract)
	require.NoError(t, err)
	return jobs.Control{Store: st, Publisher: wmbridge.Publisher{Publisher: pubsub}}, func() (*harvest.Message, harvest.Job) {
		wm := <-msgs
		wm.Ack()
		m := wmbridge.ToHarvest(wm)
		var job harvest.Job
		require.NoError(t, harvest.Decode(m, &job))
		return m, job
	}
}
