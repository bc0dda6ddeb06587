package compare

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// compareDCATAP runs HandleRecord on a dcat-ap record of the job checked with profile and
// returns what it sent on.
func (f *fixture) compareDCATAP(t *testing.T, job *store.HarvestJob, identifier, body, profile string) (harvest.Record, harvest.Settled) {
	t.Helper()
	m, err := harvest.RecordMessage(harvest.SubjectCompare, &harvest.Record{JobID: job.ID, SourceID: f.src.ID,
		JobType: job.JobType, SchemaType: harvest.SchemaDCATAP, RecordID: harvest.RecordID(job.ID, identifier),
		Identifier: identifier, Body: harvest.RawText(body), Profile: profile})
	require.NoError(t, err)
	m.SetContext(t.Context())
	out, err := f.h.HandleRecord(m)
	require.NoError(t, err)
	require.Len(t, out, 1)
	var rec harvest.Record
	var s harvest.Settled
	if out[0].Metadata.Get(harvest.MetaSubject) == harvest.SubjectSettled {
		require.NoError(t, harvest.Decode(out[0], &s))
	} else {
		require.NoError(t, harvest.Decode(out[0], &rec))
	}
	return rec, s
}

// settle settles a record of the job with the outcome and status, and ends the job.
func (f *fixture) settle(t *testing.T, job *store.HarvestJob, rec harvest.Record, outcome harvest.Outcome, status harvest.RecordStatus) {
	t.Helper()
	_, _, err := f.st.OutcomeSettle(t.Context(), &store.OutcomeSettleParams{JobID: job.ID,
		Key: harvest.IdentifierKey(rec.Identifier), Identifier: rec.Identifier, RecordID: rec.RecordID,
		Outcome: outcome, Status: status})
	require.NoError(t, err)
	_, err = f.st.JobFail(t.Context(), &store.JobFailParams{JobID: job.ID, Type: "Test", Message: "end"})
	require.NoError(t, err)
}

// Issue 25 item 26: the SHACL profile a dcat-ap record was validated with is part of what makes
// it unchanged. The same content under the same profile ("" is the default, by name or not) is
// unchanged; under another profile it is validated again: a valid record with a live dataset
// as an update marked Revalidate (VALIDATE settles it unchanged if it still passes), a record
// found invalid as a plain update or create.
func TestProfileChangeRevalidates(t *testing.T) {
	f := newFixture(t, 0)
	const body = "<http://x.test/d> <http://purl.org/dc/terms/title> \"T\" .\n"
	first := f.job(t, harvest.JobHarvest)
	rec, _ := f.compareDCATAP(t, first, "http://x.test/d", body, "")
	require.Equal(t, harvest.ActionCreate, rec.Action)
	f.synced(t, rec)
	f.settle(t, first, rec, harvest.OutcomeAdded, harvest.RecordSuccess)

	second := f.job(t, harvest.JobHarvest)
	for _, profile := range []string{"", "dcat-ap-3.0.0"} {
		_, s := f.compareDCATAP(t, second, "http://x.test/d", body, profile)
		require.Equal(t, harvest.OutcomeUnchanged, s.Outcome, "profile %q is the default", profile)
	}
	rec, _ = f.compareDCATAP(t, second, "http://x.test/d", body, "none")
	require.Equal(t, harvest.ActionUpdate, rec.Action, "another profile: validated again")
	require.True(t, rec.Revalidate, "the content is the live dataset's")
	again, _ := f.compareDCATAP(t, second, "http://x.test/d", body, "none")
	require.Equal(t, harvest.ActionUpdate, again.Action, "listed again while pending: the same decision")
	require.True(t, again.Revalidate, "and its mark")
	f.settle(t, second, rec, harvest.OutcomeErrored, harvest.RecordErrorValidation)
	known, err := f.st.RecordCompareBatch(t.Context(), []store.RecordCompareKey{{SourceID: f.src.ID,
		Identifier: "http://x.test/d"}})
	require.NoError(t, err)
	require.Equal(t, "none", known[0].Latest.SHACLProfile, "the profile is kept on the record")

	third := f.job(t, harvest.JobHarvest)
	_, s := f.compareDCATAP(t, third, "http://x.test/d", body, "none")
	require.Equal(t, harvest.OutcomeErrored, s.Outcome, "same profile: errored still, not validated again")
	rec, _ = f.compareDCATAP(t, third, "http://x.test/d", body, "dcat-ap-2.1.1")
	require.Equal(t, harvest.ActionUpdate, rec.Action)
	require.False(t, rec.Revalidate, "the newest record was invalid: a pass is an update")
}

// A record listed again while pending keeps its decision's Revalidate mark only for the content
// it was decided on: a source that changed back to the live dataset's content meanwhile (under
// new settings) is an update to write, not one to validate only, or the dataset would keep the
// content the source no longer has.
func TestPendingRecordMarksNeedItsContent(t *testing.T) {
	f := newFixture(t, 0)
	const body = "<http://x.test/d> <http://purl.org/dc/terms/title> \"T\" .\n"
	const changed = "<http://x.test/d> <http://purl.org/dc/terms/title> \"T2\" .\n"
	first := f.job(t, harvest.JobHarvest)
	rec, _ := f.compareDCATAP(t, first, "http://x.test/d", body, "")
	f.synced(t, rec)
	f.settle(t, first, rec, harvest.OutcomeAdded, harvest.RecordSuccess)

	second := f.job(t, harvest.JobHarvest)
	rec, _ = f.compareDCATAP(t, second, "http://x.test/d", changed, "none")
	require.Equal(t, harvest.ActionUpdate, rec.Action)
	require.False(t, rec.Revalidate, "new content: written")
	rec, _ = f.compareDCATAP(t, second, "http://x.test/d", body, "none")
	require.Equal(t, harvest.ActionUpdate, rec.Action, "the job's decision stands")
	require.False(t, rec.Revalidate, "the content it was decided on is not this one")
}
