package sources_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

func sourceParams(orgID, url string) *store.SourceInsertParams {
	return &store.SourceInsertParams{OrganizationID: orgID, Name: "Catalog " + uuid.NewString()[:6], URL: url,
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal, Frequency: harvest.FrequencyManual,
		NotificationFrequency: harvest.NotifyOnError}
}

// errorOf is err as an *sources.Error (the test fails when it is not one).
func errorOf(t *testing.T, err error) *sources.Error {
	t.Helper()
	var e *sources.Error
	require.True(t, errors.As(err, &e), "an *sources.Error: %v", err)
	return e
}

// TestSave: Save stores a source's URL in its normal form; names every bad field (the caller's
// own among them) in one Invalid error and writes nothing; a URL of the same catalog as
// another source's is a Conflict naming it; a SecretMask auth header keeps the stored value,
// and with none stored is a bad field; a private address is refused unless AllowPrivate;
// Delete of a source with live datasets is a Conflict saying so, of an unknown one NotFound.
func TestSave(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		s := sources.Sources{Store: st, AllowPrivate: true}
		p := sourceParams("", "HTTPS://Agency.Example.GOV:443/a/./data.json#top")
		p.AuthHeader = &store.AuthHeader{Name: "X-Api-Key", Value: "s3cret"}
		src, err := s.Save(ctx, nil, p, "dcatus1.1: federal", nil)
		require.NoError(t, err)
		require.Equal(t, "https://agency.example.gov/a/data.json", src.URL)

		bad := sourceParams("no-such-org", "ftp://agency.example.gov/data.json")
		bad.Accept = "text/turtle\r\nX-Evil: 1"
		bad.AuthHeader = &store.AuthHeader{Name: "X-Key", Value: sources.SecretMask}
		_, err = s.Save(ctx, nil, bad, "dcatus1.1: federal", sources.Fields{"notification_emails": "from the form"})
		e := errorOf(t, err)
		require.Equal(t, sources.Invalid, e.Kind)
		require.Equal(t, []string{"accept", "auth_header", "notification_emails", "organization_id", "url"}, fieldNames(err))
		require.Contains(t, e.Fields["auth_header"], "stands for a stored value")

		_, err = s.Save(ctx, nil, sourceParams("", "https://agency.example.gov/a/data.json#other"), "dcatus1.1: federal", nil)
		e = errorOf(t, err)
		require.Equal(t, sources.Conflict, e.Kind)
		require.Contains(t, e.Message, src.ID)

		// An edit that sends the mask back keeps the stored value.
		edit := sources.ParamsOf(src)
		edit.Name = "Renamed"
		edit.AuthHeader = &store.AuthHeader{Name: "X-Api-Key", Value: sources.SecretMask}
		saved, err := s.Save(ctx, src, &edit, "dcatus1.1: federal", nil)
		require.NoError(t, err)
		require.Equal(t, "Renamed", saved.Name)
		require.Equal(t, "s3cret", saved.AuthHeader.Value)

		_, err = sources.Sources{Store: st}.Save(ctx, nil, sourceParams("", "http://127.0.0.1:8080/data.json"), "dcatus1.1: federal", nil)
		require.Contains(t, errorOf(t, err).Fields["url"], "--allow-private-sources")

		withDatasets(t, st, nil, src, 2)
		e = errorOf(t, s.Delete(ctx, src.ID))
		require.Equal(t, sources.Conflict, e.Kind)
		require.Equal(t, "the harvest source has 2 live datasets: run a clear job first", e.Message)
		require.Equal(t, sources.NotFound, errorOf(t, s.Delete(ctx, uuid.NewString())).Kind)
	})
}
