package harvest

import "errors"

// PermanentError marks a handler error that no retry can cure (an undecodable message, say):
// the router's retry middleware gives up at once and the message goes to the failed subject.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err as a PermanentError; nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err is or wraps a PermanentError.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

// UnknownJobError is a stage's answer to a message of a job that its database does not have:
// one deleted with its source (the usual case), or a job of another deployment whose messages
// reach this one (two deployments with different databases on one NATS prefix, which the
// streams' stamp refuses at start). The router counts it (harvester_messages_unknown_job_total
// by stage), logs it with the job id, the stage and the NATS prefix, and acks the message: no
// retry makes the job appear, and a deleted job's message must not come back forever.
type UnknownJobError struct{ JobID string }

func (e *UnknownJobError) Error() string { return "job " + e.JobID + " is not in this database" }

// UnknownJob is the UnknownJobError of jobID.
func UnknownJob(jobID string) error { return &UnknownJobError{JobID: jobID} }

// JobFailure is a stage's answer that ends a job: fail job JobID in error with one job error row
// of type Type (a Type* constant: TypeExtractError, TypeParseError, TypeDeleteGuard, …) and
// Message. A stage returns it from its handler (wrapped or not) instead of ending the job
// itself; the stage's runner in pipeline hands it to jobs (jobs.FailStage), which ends the job
// (store.Store.JobFail) and tells the aggregator (a SettledFailed message published with the
// ack), and the message that caused it is acked. A job that is gone (deleted with its source)
// or had already finished is left as it is.
type JobFailure struct {
	JobID   string
	Type    string
	Message string
}

func (e *JobFailure) Error() string {
	return "fail job " + e.JobID + " (" + e.Type + "): " + e.Message
}

// NewJobFailure is the JobFailure that fails job jobID with a job error of type typ and message msg.
func NewJobFailure(jobID, typ, msg string) *JobFailure {
	return &JobFailure{JobID: jobID, Type: typ, Message: msg}
}

// AsJobFailure returns the JobFailure err is or wraps, or nil.
func AsJobFailure(err error) *JobFailure {
	var je *JobFailure
	if errors.As(err, &je) {
		return je
	}
	return nil
}
