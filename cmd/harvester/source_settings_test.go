package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// headerCatalog serves a one-dataset data.json and records the Accept and X-Api-Key headers of
// each request.
type headerCatalog struct {
	*httptest.Server
	mu     sync.Mutex
	accept []string
	key    []string
}

func newHeaderCatalog(t *testing.T) *headerCatalog {
	c := &headerCatalog{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.accept = append(c.accept, r.Header.Get("Accept"))
		c.key = append(c.key, r.Header.Get("X-Api-Key"))
		c.mu.Unlock()
		_, _ = w.Write([]byte(`{"conformsTo":"https://project-open-data.cio.gov/v1.1/schema","dataset":[]}`))
	}))
	t.Cleanup(c.Close)
	return c
}

// TestHarvestSourceSettingsFlags: --accept and --auth-header are sent and kept with the source;
// the secret never appears in the command's output.
func TestHarvestSourceSettingsFlags(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := newHeaderCatalog(t)
	url := srv.URL + "/data.json"
	var out, errOut strings.Builder
	args := []string{"harvest", "--url", url, "--schema-type", federal, "--accept", "application/json",
		"--auth-header", "X-Api-Key: s3cret-key",
		"--database-url", b.dbURL, "--nats-url", b.natsURL}
	code := run(context.Background(), args, &out, &errOut)
	require.Equal(t, exitOK, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
	require.NotContains(t, out.String()+errOut.String(), "s3cret")
	srv.mu.Lock()
	require.Equal(t, []string{"application/json"}, srv.accept)
	require.Equal(t, []string{"s3cret-key"}, srv.key)
	srv.mu.Unlock()
	src, err := sources.ByURL(context.Background(), b.st, url)
	require.NoError(t, err)
	require.Equal(t, "application/json", src.Accept)
	require.Equal(t, &store.AuthHeader{Name: "X-Api-Key", Value: "s3cret-key"}, src.AuthHeader)

	// A later run without the flags keeps them.
	_, code = b.harvest(t, "--url", url, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	srv.mu.Lock()
	require.Equal(t, []string{"s3cret-key", "s3cret-key"}, srv.key)
	srv.mu.Unlock()
}

// TestHarvestSourceSettingsBadFlags: a malformed --auth-header, --option or --accept, and an
// rdf source type without the dcat-ap schema type (or the reverse), are usage errors that
// write nothing and never echo the secret.
func TestHarvestSourceSettingsBadFlags(t *testing.T) {
	t.Parallel()
	b := setup(t)
	catalog := filepath.Join(t.TempDir(), "catalog.ttl")
	require.NoError(t, os.WriteFile(catalog, []byte("<a> <b> <c> .\n"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--schema-type", federal, "--auth-header", "s3cret"}, `--auth-header: want "Name: value"`},
		{[]string{"--schema-type", federal, "--auth-header", "Bad Name: s3cret"}, "--auth-header: invalid auth header"},
		{[]string{"--schema-type", federal, "--auth-header", "X-Key: s3cret\r\nX-Evil: 1"}, "control character"},
		{[]string{"--schema-type", federal, "--auth-header", "X-Key:"}, "the value is empty"},
		{[]string{"--schema-type", federal, "--option", "languages"}, `--option "languages": want key=value`},
		{[]string{"--schema-type", federal, "--accept", "text/turtle\nX: y"}, "--accept: the value has a line break"},
		{[]string{"--schema-type", federal, "--source-type", "rdf"}, `--schema-type: an rdf source holds DCAT-AP RDF (Turtle, RDF/XML, JSON-LD, N-Triples): want "dcat-ap"`},
		{[]string{"--schema-type", "dcat-ap"}, `("dcat-ap" is the schema of an rdf source)`},
		{[]string{"--schema-type", federal, "--option", "fq=x"}, `--option fq: "fq" is not a setting of a document source`},
	} {
		args := append([]string{"harvest", "--file", catalog}, tc.args...)
		args = append(args, "--database-url", b.dbURL, "--nats-url", b.natsURL, "--format", "json")
		code, stdout, stderr := runCmd(args...)
		require.Equal(t, exitUsage, code, "%v: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.want, "%v", tc.args)
		require.NotContains(t, stdout+stderr, "s3cret", "%v", tc.args)
	}
	_, total, err := b.st.SourceList(context.Background(), &store.SourceListParams{})
	require.NoError(t, err)
	require.Zero(t, total, "nothing written")

	// --file with rdf and dcat-ap is accepted (the job itself is EXTRACT's business).
	p, err := (&harvestFlags{file: catalog, schemaType: "dcat-ap", sourceType: "rdf", jobType: "harvest",
		format: "json", timeout: 1, accept: "application/rdf+xml", options: []string{"languages=nb,en", "shacl_profile=none"}}).params()
	require.NoError(t, err)
	require.Equal(t, map[string]string{"languages": "nb,en", "shacl_profile": "none"}, p.Options)
	require.Equal(t, catalog, p.URL)
	require.Equal(t, "application/rdf+xml", p.Accept)
}

// TestHarvestAuthHeaderFromEnv: HARVESTER_AUTH_HEADER gives the auth header when --auth-header
// does not, and is never a flag default (which --help would print).
func TestHarvestAuthHeaderFromEnv(t *testing.T) {
	t.Setenv(envName("auth-header"), "Authorization: Bearer env-s3cret")
	f := &harvestFlags{url: "https://data.example.no/catalog.ttl", schemaType: "dcat-ap", sourceType: "rdf",
		jobType: "harvest", format: "text", timeout: 1}
	p, err := f.params()
	require.NoError(t, err)
	require.Equal(t, &store.AuthHeader{Name: "Authorization", Value: "Bearer env-s3cret"}, p.AuthHeader)
	f.authHeader = "X-Key: flag"
	p, err = f.params()
	require.NoError(t, err)
	require.Equal(t, &store.AuthHeader{Name: "X-Key", Value: "flag"}, p.AuthHeader, "the flag wins")

	t.Setenv(envName("auth-header"), "Bad Name: env-s3cret")
	f.authHeader = ""
	_, err = f.params()
	require.ErrorContains(t, err, envName("auth-header")+": invalid auth header")
	require.NotContains(t, err.Error(), "env-s3cret")

	code, stdout, stderr := runCmd("harvest", "--help")
	require.Equal(t, exitOK, code)
	require.NotContains(t, stdout+stderr, "env-s3cret", "--help shows no secret")
	require.Contains(t, stdout, envName("auth-header"))
}
