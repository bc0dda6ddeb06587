package store

import "github.com/harvester-dev/harvester/harvest"

// JobFetchRow is a harvest_job row's fetch columns as a backend reads them (nil for NULL);
// both backends turn it into a JobFetch here, so the rules are written once.
type JobFetchRow struct {
	JobID, JobType, Status              string
	URL, SchemaType, ETag, LastModified *string
	GraphHash                           *string
	NotModified                         bool
}

// Fetch returns what the job fetched; ErrNotFound when it saved nothing.
func (r *JobFetchRow) Fetch() (*JobFetch, error) {
	if r.URL == nil {
		return nil, ErrNotFound
	}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return &JobFetch{JobID: r.JobID, URL: *r.URL, SchemaType: harvest.SchemaType(deref(r.SchemaType)),
		ETag: deref(r.ETag), LastModified: deref(r.LastModified), NotModified: r.NotModified,
		GraphHash: deref(r.GraphHash)}, nil
}

// Reusable returns what the job fetched when a new harvest job may reuse it (the row is the
// source's last finished harvest, force_harvest or clear job): the job completed, is not a
// clear, and saved a URL and at least one validator or a graph hash. ErrNotFound otherwise.
func (r *JobFetchRow) Reusable() (*JobFetch, error) {
	if r.Status != string(harvest.JobComplete) || r.JobType == string(harvest.JobClear) {
		return nil, ErrNotFound
	}
	f, err := r.Fetch()
	if err != nil || (f.ETag == "" && f.LastModified == "" && f.GraphHash == "") {
		return nil, ErrNotFound
	}
	return f, nil
}

// JobFetch is what one job's extract fetched: the document URL, the schema type it was read
// with, and the response's cache validators (ETag, Last-Modified; empty when the server sent
// none), for a later harvest job's conditional GET, and whether the answer was 304.
type JobFetch struct {
	JobID        string
	URL          string
	SchemaType   harvest.SchemaType
	ETag         string
	LastModified string
	NotModified  bool // the server answered 304 Not Modified: the job reused the validators
	// GraphHash is the hash of the whole graph an rdf source's job parsed (dcatap.GraphHash):
	// a later harvest job whose graph has the same hash is "not modified" as after a 304 (the
	// same rules as for the validators: JobFetchLatest). "" when none was saved.
	GraphHash string
}
