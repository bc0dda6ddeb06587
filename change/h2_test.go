package change

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/h2hash"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// TestImportedRecordUnchangedByH2Hash: a record imported from H2.0 (source_raw sorted, so our
// hash of it differs from our hash of the publisher's record) is unchanged when H2.0's hash of
// the publisher's record matches its h2_source_hash, and changed when the record changed.
func TestImportedRecordUnchangedByH2Hash(t *testing.T) {
	published := []byte(`{"identifier": "a", "keyword": ["z", "a"], "title": "T"}`)
	stored, err := h2hash.Sorted(published) // what H2.0 keeps as source_raw
	require.NoError(t, err)
	ours, err := SourceHash([]byte(stored))
	require.NoError(t, err)
	h2, err := h2hash.JSON(published)
	require.NoError(t, err)
	hash, err := SourceHash(published)
	require.NoError(t, err)
	require.NotEqual(t, ours, hash, "our hash of the sorted record differs")

	rec := &harvest.Record{JobType: harvest.JobHarvest, SchemaType: harvest.SchemaDCATUS11Federal, Body: published}
	imported := &store.RecordCompare{DatasetLive: true, Latest: &store.RecordCompareLatest{Status: harvest.RecordSuccess,
		Action: harvest.ActionCreate, SourceHash: ours, H2SourceHash: h2, SchemaType: harvest.SchemaDCATUS11Federal}}
	require.Equal(t, harvest.ActionUnchanged, decideAction(rec, hash, imported))

	plain := *imported.Latest
	plain.H2SourceHash = ""
	require.Equal(t, harvest.ActionUpdate, decideAction(rec, hash, &store.RecordCompare{DatasetLive: true, Latest: &plain}))

	changed := &harvest.Record{JobType: harvest.JobHarvest, SchemaType: harvest.SchemaDCATUS11Federal,
		Body: []byte(`{"identifier": "a", "keyword": ["z", "a"], "title": "T2"}`)}
	changedHash, err := SourceHash(changed.Body)
	require.NoError(t, err)
	require.Equal(t, harvest.ActionUpdate, decideAction(changed, changedHash, imported))

	xml := &harvest.Record{JobType: harvest.JobHarvest, SchemaType: harvest.SchemaISO19115_2, XML: []byte("<a>é</a>")}
	iso := &store.RecordCompare{DatasetLive: true, Latest: &store.RecordCompareLatest{Status: harvest.RecordSuccess,
		Action: harvest.ActionCreate, SourceHash: "other", H2SourceHash: h2hash.XML("<a>é</a>"), SchemaType: harvest.SchemaISO19115_2}}
	require.Equal(t, harvest.ActionUnchanged, decideAction(xml, "mine", iso))
}

// decideAction is Decide's action alone.
func decideAction(rec *harvest.Record, hash string, known *store.RecordCompare) harvest.Action {
	action, _, _ := Decide(rec, hash, known)
	return action
}
