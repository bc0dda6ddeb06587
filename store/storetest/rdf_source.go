package storetest

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testSourceFetchSettings: accept, auth_header and options are stored and read back; an update
// replaces them (a nil header removes it); SourceEnsure keeps them unless it gives new ones.
func testSourceFetchSettings(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := store.SourceInsertParams{Name: "FDK", URL: "https://fdk.example.no/catalog.ttl",
		SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP, Accept: "text/turtle",
		AuthHeader: &store.AuthHeader{Name: "Authorization", Value: "Bearer s3cret"},
		Options:    map[string]string{"shacl_profile": "dcat-ap-no-2.0", "languages": "nb,nn,en"}}
	src, err := s.SourceInsert(ctx, &p)
	require.NoError(t, err)
	require.Equal(t, "text/turtle", src.Accept)
	require.Equal(t, &store.AuthHeader{Name: "Authorization", Value: "Bearer s3cret"}, src.AuthHeader)
	require.Equal(t, p.Options, src.Options)
	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got)
	require.NotContains(t, fmt.Sprintf("%v %+v %#v", *got.AuthHeader, got, *got.AuthHeader), "s3cret",
		"a printed source masks the secret")

	// Ensure without settings keeps them.
	ensured, err := s.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "x", URL: p.URL,
		SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP})
	require.NoError(t, err)
	require.Equal(t, src.Accept, ensured.Accept)
	require.Equal(t, src.AuthHeader, ensured.AuthHeader)
	require.Equal(t, src.Options, ensured.Options)
	// Ensure with settings replaces them.
	ensured, err = s.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "x", URL: p.URL,
		SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP, Accept: "application/rdf+xml",
		AuthHeader: &store.AuthHeader{Name: "X-Api-Key", Value: "k2"}, Options: map[string]string{"languages": "en"}})
	require.NoError(t, err)
	require.Equal(t, "application/rdf+xml", ensured.Accept)
	require.Equal(t, &store.AuthHeader{Name: "X-Api-Key", Value: "k2"}, ensured.AuthHeader)
	require.Equal(t, map[string]string{"languages": "en"}, ensured.Options)

	// Update replaces; nil and empty remove.
	up := store.SourceUpdateParams{ID: src.ID, SourceInsertParams: p}
	up.Accept, up.AuthHeader, up.Options = "", nil, map[string]string{}
	updated, err := s.SourceUpdate(ctx, &up)
	require.NoError(t, err)
	require.Empty(t, updated.Accept)
	require.Nil(t, updated.AuthHeader)
	require.Nil(t, updated.Options)
	got, err = s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, updated, got)
	up.Accept, up.AuthHeader, up.Options = "text/n-triples", &store.AuthHeader{Name: "X-Key", Value: ""}, map[string]string{"a": "b"}
	updated, err = s.SourceUpdate(ctx, &up)
	require.NoError(t, err)
	require.Equal(t, "text/n-triples", updated.Accept)
	require.Equal(t, &store.AuthHeader{Name: "X-Key", Value: ""}, updated.AuthHeader, "an empty value is a value")
	require.Equal(t, map[string]string{"a": "b"}, updated.Options)

	// A source without settings has none.
	plain := newSource(t, s)
	require.Empty(t, plain.Accept)
	require.Nil(t, plain.AuthHeader)
	require.Nil(t, plain.Options)
}

// testResourceIDs: an fdkId is minted once per URI, for the missing URIs only, and kept even if
// the mint function changes; big lists are batched.
func testResourceIDs(t *testing.T, s store.Store) {
	ctx := t.Context()
	minted := map[string]int{}
	mint := func(prefix string) func(string) string {
		return func(uri string) string { minted[uri]++; return prefix + uri }
	}
	base := "https://data.example.no/" + uuid.NewString() + "/dataset/"
	ids, err := s.ResourceIDs(ctx, []string{base + "1", base + "2", base + "1"}, mint("v1:"))
	require.NoError(t, err)
	require.Equal(t, map[string]string{base + "1": "v1:" + base + "1", base + "2": "v1:" + base + "2"}, ids)
	require.Equal(t, map[string]int{base + "1": 1, base + "2": 1}, minted)

	ids, err = s.ResourceIDs(ctx, []string{base + "2", base + "3"}, mint("v2:"))
	require.NoError(t, err)
	require.Equal(t, map[string]string{base + "2": "v1:" + base + "2", base + "3": "v2:" + base + "3"}, ids,
		"a known URI keeps its fdkId")
	require.Equal(t, 1, minted[base+"2"], "mint is called for missing URIs only")

	ids, err = s.ResourceIDs(ctx, nil, mint("x"))
	require.NoError(t, err)
	require.Empty(t, ids)

	var many []string
	for i := range 1234 {
		many = append(many, fmt.Sprintf("%sbig/%d", base, i))
	}
	ids, err = s.ResourceIDs(ctx, many, mint("v3:"))
	require.NoError(t, err)
	require.Len(t, ids, len(many))
	for _, u := range many {
		require.Equal(t, "v3:"+u, ids[u])
	}
	ids, err = s.ResourceIDs(ctx, append(many, base+"1"), mint("v4:"))
	require.NoError(t, err)
	require.Len(t, ids, len(many)+1)
	require.Equal(t, "v3:"+many[1000], ids[many[1000]])
	require.Equal(t, "v1:"+base+"1", ids[base+"1"])
}

// testCatalogChecksums: CatalogChecksumsSet marks new and changed catalogs changed in the job
// (all of them when forced), keeps unchanged ones' job, is idempotent, and the rows go with the
// source.
func testCatalogChecksums(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	other := newSource(t, s)
	sums, err := s.CatalogChecksums(ctx, src.ID)
	require.NoError(t, err)
	require.Empty(t, sums)

	cat := func(n, sum string) store.CatalogChecksum {
		return store.CatalogChecksum{URI: "https://data.example.no/catalog/" + n, FdkID: "fdk-" + n, Checksum: sum}
	}
	res := func(n string) store.Resource {
		return store.Resource{FdkID: "fdk-" + n, URI: "https://data.example.no/catalog/" + n}
	}
	job1 := newJob(t, s, src.ID)
	set := func(job *store.HarvestJob, force bool, cs ...store.CatalogChecksum) {
		t.Helper()
		require.NoError(t, s.CatalogChecksumsSet(ctx, &store.CatalogChecksumsSetParams{SourceID: job.SourceID,
			JobID: job.ID, Catalogs: cs, Force: force}))
	}
	changed := func(job *store.HarvestJob) []store.Resource {
		t.Helper()
		got, err := s.CatalogsChangedInJob(ctx, job.ID)
		require.NoError(t, err)
		return got
	}
	set(job1, false, cat("1", "a"), cat("0", "b"))
	set(job1, false, cat("1", "a"), cat("0", "b")) // redelivery
	require.Equal(t, []store.Resource{res("0"), res("1")}, changed(job1))
	sums, err = s.CatalogChecksums(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, map[string]string{cat("0", "").URI: "b", cat("1", "").URI: "a"}, sums)
	finishJob(t, s, job1.ID)

	// The other source's catalog of the same IRI is its own.
	otherJob := newJob(t, s, other.ID)
	set(otherJob, false, cat("0", "zzz"))
	require.Equal(t, []store.Resource{res("0")}, changed(otherJob))

	job2 := newJob(t, s, src.ID)
	set(job2, false, cat("0", "b2"), cat("1", "a"))
	require.Equal(t, []store.Resource{res("0")}, changed(job2), "only the changed catalog")
	require.Equal(t, []store.Resource{res("1")}, changed(job1), "the unchanged one keeps the job that changed it")
	finishJob(t, s, job2.ID)

	job3 := newJob(t, s, src.ID)
	set(job3, false, cat("1", "a"))
	require.Empty(t, changed(job3))
	sums, err = s.CatalogChecksums(ctx, src.ID)
	require.NoError(t, err)
	require.Len(t, sums, 2, "a catalog the job did not see is kept")
	finishJob(t, s, job3.ID)

	forced := newJob(t, s, src.ID)
	set(forced, true, cat("1", "a"), cat("0", "b2"))
	require.Equal(t, []store.Resource{res("0"), res("1")}, changed(forced), "forced: every catalog")
	finishJob(t, s, forced.ID)

	require.ErrorIs(t, s.CatalogChecksumsSet(ctx, &store.CatalogChecksumsSetParams{SourceID: uuid.NewString(),
		JobID: uuid.NewString(), Catalogs: []store.CatalogChecksum{cat("9", "x")}}), store.ErrNotFound)
	got, err := s.CatalogsChangedInJob(ctx, uuid.NewString())
	require.NoError(t, err)
	require.Empty(t, got)

	require.NoError(t, s.SourceDelete(ctx, src.ID))
	sums, err = s.CatalogChecksums(ctx, src.ID)
	require.NoError(t, err)
	require.Empty(t, sums, "deleted with the source")
	require.Equal(t, []store.Resource{res("0")}, changed(otherJob))
}

// testOutcomeIdentifiers: the identifiers of a job's records by outcome, keyed by identifier
// only, in identifier order.
func testOutcomeIdentifiers(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	for _, o := range []struct {
		key     string
		outcome harvest.Outcome
	}{
		{harvest.IdentifierKey("b"), harvest.OutcomeAdded},
		{harvest.IdentifierKey("a"), harvest.OutcomeUpdated},
		{harvest.IdentifierKey("c%_"), harvest.OutcomeAdded},
		{harvest.IdentifierKey("gone"), harvest.OutcomeDeleted},
		{harvest.IdentifierKey("same"), harvest.OutcomeUnchanged},
		{harvest.IdentifierKey("bad"), harvest.OutcomeErrored},
		{harvest.PositionKey(7), harvest.OutcomeErrored},
	} {
		settle(t, s, job.ID, o.key, o.outcome)
	}
	ids := func(os ...harvest.Outcome) []string {
		t.Helper()
		got, err := s.OutcomeIdentifiers(ctx, &store.OutcomeIdentifiersParams{JobID: job.ID, Outcomes: os})
		require.NoError(t, err)
		return got
	}
	require.Equal(t, []string{"a", "b", "c%_"}, ids(harvest.OutcomeAdded, harvest.OutcomeUpdated))
	require.Equal(t, []string{"gone"}, ids(harvest.OutcomeDeleted))
	require.Equal(t, []string{"bad"}, ids(harvest.OutcomeErrored), "a position key has no identifier")
	require.Empty(t, ids())
	page := func(after string, limit int) []string {
		t.Helper()
		got, err := s.OutcomeIdentifiers(ctx, &store.OutcomeIdentifiersParams{JobID: job.ID,
			Outcomes: []harvest.Outcome{harvest.OutcomeAdded, harvest.OutcomeUpdated}, After: after, Limit: limit})
		require.NoError(t, err)
		return got
	}
	require.Equal(t, []string{"a", "b"}, page("", 2), "a page")
	require.Equal(t, []string{"c%_"}, page("b", 2), "the next page")
	require.Empty(t, page("c%_", 2), "past the last")
	require.Equal(t, []string{"b", "c%_"}, page("a", 0), "after, unlimited")
	got, err := s.OutcomeIdentifiers(ctx, &store.OutcomeIdentifiersParams{JobID: uuid.NewString(),
		Outcomes: []harvest.Outcome{harvest.OutcomeAdded}})
	require.NoError(t, err)
	require.Empty(t, got)
}

// testJobFetchGraphHash: a job's graph hash is saved with its fetch, and a completed job that
// saved only a graph hash (no validator) is reusable.
func testJobFetchGraphHash(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	want := &store.JobFetch{JobID: job.ID, URL: "https://fdk.example.no/catalog.ttl", SchemaType: harvest.SchemaDCATAP,
		GraphHash: "sha256:abc"}
	require.NoError(t, s.JobFetchSet(ctx, want))
	got, err := s.JobFetchGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, want, got)
	finishJob(t, s, job.ID)
	got, err = s.JobFetchLatest(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, want, got)

	next := newJob(t, s, src.ID)
	require.NoError(t, s.JobFetchSet(ctx, &store.JobFetch{JobID: next.ID, URL: want.URL, SchemaType: harvest.SchemaDCATAP}))
	finishJob(t, s, next.ID)
	_, err = s.JobFetchLatest(ctx, src.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "neither validators nor a graph hash")
}
