package store

import "github.com/harvester-dev/harvester/harvest"

// RecordCompareKey is one record being compared: its key in the source and the id of its
// harvest_record in this job (harvest.RecordID of job and identifier). An id or source id
// that is not a UUID matches nothing.
type RecordCompareKey struct {
	SourceID   string
	Identifier string
	RecordID   string
}

// RecordCompare is what the store knows about one RecordCompareKey: what RecordGet,
// RecordLatest and DatasetGet answer for it, reduced to the fields COMPARE decides on.
type RecordCompare struct {
	// Stored is the harvest_record with the key's RecordID (RecordGet); nil when there is none.
	Stored *RecordCompareStored
	// Latest is the newest record of (source, identifier) whose outcome is known
	// (RecordLatest); nil when there is none.
	Latest *RecordCompareLatest
	// DatasetLive reports whether the catalog has a live dataset of (source, identifier)
	// (DatasetGet finds one; a dataset held as a cross-source duplicate counts).
	DatasetLive bool
	// DuplicateStale reports whether the dataset's cross-source duplicate standing disagrees
	// with the rule now (a precedence changed, or an earlier version of the rule judged it):
	// it is held against a dataset it outranks, or a dataset that outranks it is held against
	// it (CrossSourceDuplicate says how datasets rank). COMPARE sends such a record on to
	// SYNC, which judges the pair again, even when it is unchanged.
	DuplicateStale bool
	// DuplicateMoved reports whether a job of another source changed whether the dataset is
	// held, or against which dataset, since its own source last wrote it (Store.DatasetHold,
	// DatasetDuplicateKeep, DatasetDuplicateRelease): the CrossSourceDuplicate warning its
	// record last got (or the lack of one) may no longer say what is true. COMPARE sends such a
	// record on to SYNC to be judged again; it still counts as unchanged
	// (harvest.Record.Rejudge).
	DuplicateMoved bool
}

// RecordCompareStored is the part of a job's own harvest_record that COMPARE reads.
type RecordCompareStored struct {
	JobID      string
	Action     harvest.Action
	Status     harvest.RecordStatus
	SourceHash string // the hash its content had when the job decided it ("" for none)
}

// RecordCompareLatest is the part of the newest comparable record that COMPARE reads.
type RecordCompareLatest struct {
	ID         string // the harvest_record's id
	Status     harvest.RecordStatus
	SourceHash string // "" when the record has none
	Action     harvest.Action
	SchemaType harvest.SchemaType // "" for records written before schema_type was kept
	// SHACLProfile is the SHACL profile a dcat-ap record was validated with
	// (RecordInsertParams.SHACLProfile); "" for other records and those written before it was kept.
	SHACLProfile string
	// H2SourceHash is Data.gov H2.0's source_hash of a record imported from H2.0 (package
	// h2hash); "" for every record Harvester wrote.
	H2SourceHash string
}
