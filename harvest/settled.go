package harvest

// The Settled messages the stages send, one constructor per shape. Each returns a *Settled
// for Settle (a handler's return value) or SettledMessage (a message to publish); a caller
// sets the fields its outcome adds (Status, Validated, Transformed, the carried ids) on it.

// SettleFailed is the Settled (SettledFailed) that asks the aggregator to report job jobID,
// which has already ended in error (its status written by store.Store.JobFail).
func SettleFailed(jobID string) *Settled {
	return &Settled{Kind: SettledFailed, JobID: jobID}
}

// SettleExpected is the Settled (SettledExpected) that tells the aggregator that job jobID
// settles n records in all: sent once its listing is complete.
func SettleExpected(jobID string, n int) *Settled {
	return &Settled{Kind: SettledExpected, JobID: jobID, Expected: n}
}

// SettleIdentifier is the outcome (SettledOutcome) of the record with identifier in job
// jobID, keyed by IdentifierKey(identifier), with errs as its rows (warnings included) and no
// harvest_record row.
func SettleIdentifier(jobID, identifier string, outcome Outcome, errs ...RecordError) *Settled {
	return SettleKey(jobID, IdentifierKey(identifier), identifier, outcome, errs...)
}

// SettleKey is the outcome (SettledOutcome) of the record under key (IdentifierKey, or
// PositionKey for an entry without a usable identifier) in job jobID, with identifier as read
// (may be empty) and errs as its rows.
func SettleKey(jobID, key, identifier string, outcome Outcome, errs ...RecordError) *Settled {
	return &Settled{Kind: SettledOutcome, JobID: jobID, Key: key, Identifier: identifier, Outcome: outcome, Errors: errs}
}

// SettleRecord is the outcome of rec (SettleIdentifier of its job and identifier) under its
// harvest_record row, rec.StoredRecordID() (none in a validate job).
func SettleRecord(rec *Record, outcome Outcome, errs ...RecordError) *Settled {
	s := SettleIdentifier(rec.JobID, rec.Identifier, outcome, errs...)
	s.RecordID = rec.StoredRecordID()
	return s
}
