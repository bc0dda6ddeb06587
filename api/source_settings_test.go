package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/sources"
)

// TestSourceFetchSettings: accept, auth_header and options are stored; the auth header's value
// is never returned (sources.SecretMask) nor logged; a PUT that sends the mask keeps the stored value,
// one that leaves auth_header out removes it.
func TestSourceFetchSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const secret = "Bearer s3cret-token"
	body := map[string]any{"name": "FDK", "url": "https://fdk.example.no/catalog.ttl", "source_type": "rdf",
		"schema_type": "dcat-ap", "accept": "text/turtle",
		"auth_header": map[string]any{"name": "Authorization", "value": secret},
		"options":     map[string]any{"shacl_profile": "dcat-ap-no-2.0", "languages": "nb,en"}}
	created := b.write(t, http.MethodPost, "/api/v1/harvest_sources", body)
	require.Equal(t, http.StatusCreated, created.status, "body: %s", created.body)
	require.NotContains(t, string(created.body), "s3cret")
	src := created.object(t)
	requireSchema(t, "HarvestSource", src)
	require.Equal(t, "text/turtle", src["accept"])
	require.Equal(t, map[string]any{"name": "Authorization", "value": sources.SecretMask}, src["auth_header"])
	require.Equal(t, map[string]any{"shacl_profile": "dcat-ap-no-2.0", "languages": "nb,en"}, src["options"])
	id := src["id"].(string)
	stored, err := b.store.SourceGet(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, secret, stored.AuthHeader.Value, "the secret itself is stored")

	got := b.get(t, "/api/v1/harvest_sources/"+id)
	require.NotContains(t, string(got.body), "s3cret")
	list := b.get(t, "/api/v1/harvest_sources")
	require.NotContains(t, string(list.body), "s3cret")

	// PUT with the mask keeps the value (the name may change).
	body["auth_header"] = map[string]any{"name": "X-Api-Key", "value": sources.SecretMask}
	body["name"] = "FDK renamed"
	r := b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, body)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	stored, err = b.store.SourceGet(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, "X-Api-Key", stored.AuthHeader.Name)
	require.Equal(t, secret, stored.AuthHeader.Value)

	// PUT with a new value replaces it; without auth_header removes it.
	body["auth_header"] = map[string]any{"name": "X-Api-Key", "value": "k2"}
	require.Equal(t, http.StatusOK, b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, body).status)
	stored, _ = b.store.SourceGet(context.Background(), id)
	require.Equal(t, "k2", stored.AuthHeader.Value)
	delete(body, "auth_header")
	delete(body, "options")
	r = b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, body)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	require.Nil(t, r.object(t)["auth_header"])
	require.Nil(t, r.object(t)["options"])
	// The mask with nothing stored is refused.
	body["auth_header"] = map[string]any{"name": "X-Api-Key", "value": sources.SecretMask}
	requireFields(t, b.write(t, http.MethodPut, "/api/v1/harvest_sources/"+id, body), "auth_header")

	require.NotContains(t, b.logs.String(), "s3cret", "never logged")
}

// TestSourceFetchSettingsInvalid: a bad header name, a value with CR/LF, an accept with a
// control character, and options that are not strings are field errors that never quote the
// secret.
func TestSourceFetchSettingsInvalid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	base := func() map[string]any {
		return map[string]any{"name": "FDK", "url": "https://fdk.example.no/x.ttl", "source_type": "rdf", "schema_type": "dcat-ap"}
	}
	for _, c := range []struct {
		name   string
		set    map[string]any
		fields []string
	}{
		{"header name with a space", map[string]any{"auth_header": map[string]any{"name": "Authorization: Bearer s3cret", "value": "x"}}, []string{"auth_header"}},
		{"value with CRLF", map[string]any{"auth_header": map[string]any{"name": "X-Key", "value": "s3cret\r\nX-Evil: 1"}}, []string{"auth_header"}},
		{"no value", map[string]any{"auth_header": map[string]any{"name": "X-Key"}}, []string{"auth_header"}},
		{"no name", map[string]any{"auth_header": map[string]any{"value": "s3cret"}}, []string{"auth_header"}},
		{"mask on create", map[string]any{"auth_header": map[string]any{"name": "X-Key", "value": sources.SecretMask}}, []string{"auth_header"}},
		{"accept with LF", map[string]any{"accept": "text/turtle\nX: y"}, []string{"accept"}},
		{"option not a string", map[string]any{"options": map[string]any{"languages": []string{"nb"}, "n": 3, "shacl_profile": "none"}},
			[]string{"options.languages", "options.n"}},
		{"options not an object", map[string]any{"options": "languages=nb"}, []string{"options"}},
		{"rdf without dcat-ap", map[string]any{"schema_type": "dcatus1.1: federal"}, []string{"schema_type"}},
		{"dcat-ap without rdf", map[string]any{"source_type": "document"}, []string{"schema_type"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := base()
			for k, v := range c.set {
				body[k] = v
			}
			r := b.write(t, http.MethodPost, "/api/v1/harvest_sources", body)
			f := requireFields(t, r, c.fields...)
			require.NotContains(t, string(r.body), "s3cret", "%v", f)
		})
	}
	require.NotContains(t, b.logs.String(), "s3cret")
}
