package harvest

// Error types: the `type` of a harvest_record_error row (RecordError.Type) or of a
// harvest_job_error row, as Data.gov H2.0 spells them where it has them
// (../shared/reference: ValidationError, ExtractError, DuplicateIdentifier, ...) and in the same
// CamelCase where it does not. Rows of the types ending in "Warning", and of the record warnings
// below, have SeverityWarning; every other type is an error.
const (
	// Record errors.
	TypeValidationError     = "ValidationError"     // VALIDATE: the DCAT-US schema or SHACL said no
	TypeValidationWarning   = "ValidationWarning"   // VALIDATE: a finding that does not stop the record
	TypeTransformError      = "TransformError"      // TRANSFORM: the record could not be mapped to DCAT-US
	TypeTransformWarning    = "TransformWarning"    // TRANSFORM: a field was dropped or guessed
	TypeParseError          = "ParseError"          // EXTRACT: the record's bytes do not parse
	TypeRDFSyntaxWarning    = "RDFSyntaxWarning"    // EXTRACT: an RDF parser recovered from bad syntax
	TypeDuplicateIdentifier = "DuplicateIdentifier" // EXTRACT: an identifier seen twice in one listing
	TypeMissingIdentifier   = "MissingIdentifier"   // EXTRACT: a record without an identifier
	TypeInvalidIdentifier   = "InvalidIdentifier"   // EXTRACT: an identifier that cannot be stored
	TypeIdentifierTooLong   = "IdentifierTooLong"   // EXTRACT: an identifier over MaxIdentifierBytes
	TypeRecordTooLarge      = "RecordTooLarge"      // EXTRACT: a record over --max-record-bytes
	TypeInvalidEncoding     = "InvalidEncoding"     // EXTRACT: bytes that are not UTF-8
	TypeStageError          = "StageError"          // any stage gave up on the record after retries
	TypeCompareError        = "CompareError"        // COMPARE could not compare the record
	TypeRecordError         = "RecordError"         // EXTRACT: an RDF dataset's triples could not be canonicalized
	// A record that its job's end kept from the catalog (cancelled or failed while the record
	// was on its way) has a TypeCancelledJob row: store.Store.JobFail writes it, SYNC settles
	// a record the store refused with it.

	// Record warnings.
	TypePortalPageSize       = "PortalPageSize"       // EXTRACT: a portal served smaller pages than asked for: set its page size
	TypeCrossSourceDuplicate = "CrossSourceDuplicate" // EXTRACT: a portal item another source harvests too; SYNC: a dataset another source publishes too (store.CrossSourceDuplicate)

	// Job errors.
	TypeExtractError     = "ExtractError"     // the source could not be listed: the job fails, nothing is deleted
	TypeFetchError       = "FetchError"       // a download failed
	TypeCancelledJob     = "CancelledJob"     // an operator cancelled the job (API, web UI or CLI); also a record error (above)
	TypeFailedJobCleanup = "FailedJobCleanup" // the scheduler ended an orphaned job after its re-drives
	TypeTriggerError     = "TriggerError"     // the job could not be handed to EXTRACT
	TypeDeleteGuard      = "DeleteGuard"      // COMPARE refused to delete more than the guard allows

	// Job notices: job-level rows of a job that completed (its status stays complete).
	TypeCrossSourceDuplicateReleased = "CrossSourceDuplicateReleased" // REPORT: pairs by a landingPage/downloadURL key shared within one source ended, their held datasets live again
)
