// Package change is change detection, the rule COMPARE applies to each record and EXTRACT to
// the records of a claimed listing (a data.json's, stages/extract decideClaimed): a record's
// source_hash (SourceHash, RecordHash), what the record does to the catalog given what the store
// knows of it (Decide), the outcome of an unchanged one (UnchangedOutcome), and where a changed
// one goes next (Onward) with what its harvest_record keeps (SourceRaw, SHACLProfile). It holds
// no state and does no I/O: the stages look the records up (store.Store.RecordCompareBatch) and
// pass the answer.
package change

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/h2hash"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/shacl/profiles"
	"github.com/harvester-dev/harvester/store"
)

// RecordHash is the source_hash of a record: SourceHash of a JSON record; for an XML record,
// the SHA-256 of its bytes (Data.gov H2.0 does not canonicalise XML either); for a DCAT-AP
// record, dcatap.SourceHash of its Body, which EXTRACT made the canonical N-Quads of the record's
// skolemized graph (dcatap.Canonical), so the hash is of the graph, not of its syntax (nor of
// the spelling of its skolem IRIs: the hashes stored before they moved to the authority hold).
func RecordHash(rec *harvest.Record) (string, error) {
	if len(rec.XML) > 0 {
		sum := sha256.Sum256(rec.XML)
		return hex.EncodeToString(sum[:]), nil
	}
	if rec.SchemaType == harvest.SchemaDCATAP {
		return dcatap.SourceHash(rec.Identifier, rec.Body), nil
	}
	return SourceHash(rec.Body)
}

// Decide decides what the record does to the catalog, from what the store knows of it. It is
// unchanged when the newest record with a known outcome has the same hash (sameContent) and was
// checked under the same settings (sameChecks: an invalid record stays unchanged until it, or
// the source's schema_type or shacl_profile, changes) and its cross-source duplicate standing
// is not stale (a source's precedence changed: SYNC must judge the pair again) and was not
// moved by another source's job. Otherwise it is an update when the
// catalog has a live dataset for the identifier and a create when it has none, so counts follow
// the catalog even after an interrupted job. revalidate is true for an update whose content is
// that of a record that was valid and whose dataset is live: only the settings changed, and
// VALIDATE settles it unchanged if it is still valid (harvest.Record.Revalidate). rejudge is
// true instead when, besides, another source's job moved the dataset (held it, made it live
// again, swapped its pair): SYNC judges it again and settles it unchanged with a warning that
// is true now (harvest.Record.Rejudge). A validate job writes no dataset: it only revalidates.
func Decide(rec *harvest.Record, hash string, known *store.RecordCompare) (action harvest.Action, revalidate, rejudge bool) {
	latest := known.Latest
	same := latest != nil && latest.Action != harvest.ActionDelete && rec.JobType != harvest.JobForceHarvest &&
		sameContent(rec, hash, latest)
	moved := known.DuplicateMoved && known.DatasetLive && rec.JobType != harvest.JobValidate
	switch {
	case same && sameChecks(rec, latest) && !known.DuplicateStale && !moved:
		return harvest.ActionUnchanged, false, false
	case known.DatasetLive:
		again := same && latest.Status == harvest.RecordSuccess && !known.DuplicateStale
		return harvest.ActionUpdate, again && !moved, again && moved
	}
	return harvest.ActionCreate, false, false
}

// sameChecks reports whether latest was validated as rec would be: against the same schema
// type (a record written before schema_type was kept matches any), and, for a dcat-ap record,
// with the same SHACL profile (one written before the profile was kept is validated again).
func sameChecks(rec *harvest.Record, latest *store.RecordCompareLatest) bool {
	return (latest.SchemaType == "" || latest.SchemaType == rec.SchemaType) && latest.SHACLProfile == SHACLProfile(rec)
}

// SHACLProfile is the SHACL profile VALIDATE checks rec with, as harvest_record keeps it: a
// dcat-ap record's Profile, resolved (profiles.Resolve: "" is the default); "" for other schema
// types.
func SHACLProfile(rec *harvest.Record) string {
	if rec.SchemaType != harvest.SchemaDCATAP {
		return ""
	}
	return profiles.Resolve(rec.Profile)
}

// sameContent reports whether the record, of our source_hash hash, has the content of latest:
// the same source_hash, or, for a record imported from Data.gov H2.0 (harvester import-h2),
// H2.0's source_hash of the record (package h2hash) equal to the one H2.0 stored. H2.0 keeps
// the record sansjson-sorted, arrays included, so our hash of what it stored differs from our
// hash of the publisher's document whenever an array is not in sorted order; H2.0's own hash
// of the publisher's document does not. H2.0's hash is computed only for such records.
func sameContent(rec *harvest.Record, hash string, latest *store.RecordCompareLatest) bool {
	if latest.SourceHash == hash {
		return true
	}
	if latest.H2SourceHash == "" {
		return false
	}
	if len(rec.XML) > 0 {
		return h2hash.XML(string(rec.XML)) == latest.H2SourceHash
	}
	h2, err := h2hash.JSON(rec.Body)
	return err == nil && h2 == latest.H2SourceHash
}

// UnchangedOutcome is the outcome of a record that Decide found unchanged since latest, its newest
// comparable record. A record that was invalid then is invalid still: it is not validated
// again (Data.gov re-inserts and re-validates such records every run, d.g#5299), but it
// counts as errored in this job too, which carries latest's error rows (marked as carried from
// latest's job), so the job's counts, its record errors and an on_error email say what a
// validate job would. A record that was valid is unchanged, and carries latest's warning rows
// the same way, so an unchanged rerun warns about (and counts as warned) what the job that
// checked it did.
func UnchangedOutcome(rec *harvest.Record, latest *store.RecordCompareLatest) *harvest.Settled {
	s := harvest.SettleIdentifier(rec.JobID, rec.Identifier, harvest.OutcomeUnchanged)
	s.CarriedFromRecordID = latest.ID
	if latest.Status == harvest.RecordErrorValidation || latest.Status == harvest.RecordErrorTransform {
		s.Outcome = harvest.OutcomeErrored
	}
	return s
}

// Onward is the subject of a changed record's next stage: VALIDATE for a record that already
// is DCAT-US (DESIGN.md: "DCAT-US input skips" TRANSFORM, which has nothing to do for it:
// skipping it saves a JetStream hop per record), else TRANSFORM.
func Onward(rec *harvest.Record) string {
	if rec.SourceType.IsPortal() {
		return harvest.SubjectTransform
	}
	switch rec.SchemaType {
	case harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal, harvest.SchemaDCATUS30:
		return harvest.SubjectValidate
	}
	return harvest.SubjectTransform
}

// SourceRaw is what source_raw keeps: the record as written. An XML file in a declared
// encoding other than UTF-8 is kept with its invalid bytes replaced (U+FFFD), as text columns
// hold UTF-8 only; its hash is of the original bytes.
func SourceRaw(rec *harvest.Record) string {
	if len(rec.XML) > 0 {
		return strings.ToValidUTF8(string(rec.XML), "\uFFFD")
	}
	return string(rec.Body)
}

// RecordRow is the harvest_record of a changed record whose Action and SourceHash are decided
// (Decide, RecordHash): what COMPARE, or a claimed listing in EXTRACT, inserts before the record
// goes on (store.Store.RecordInsertBatch).
func RecordRow(rec *harvest.Record) *store.RecordInsertParams {
	return &store.RecordInsertParams{ID: rec.RecordID, JobID: rec.JobID, SourceID: rec.SourceID,
		Identifier: rec.Identifier, Action: rec.Action, SourceHash: rec.SourceHash, SourceRaw: SourceRaw(rec),
		SchemaType: rec.SchemaType, SHACLProfile: SHACLProfile(rec), Replay: rec.Replay}
}
