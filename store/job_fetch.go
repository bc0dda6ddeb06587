package store

import "github.com/harvester-dev/harvester/harvest"

// ReusableFetch completes f from the columns of the job that JobFetchLatest found (nil for
// NULL) and returns it when a new harvest job may reuse it: the job completed, is not a clear,
// and saved a URL and at least one validator. ErrNotFound otherwise. Backends share it so the
// rule is written once.
func ReusableFetch(f *JobFetch, jobType, status string, url, schemaType, etag, lastModified *string) (*JobFetch, error) {
	if status != string(harvest.JobComplete) || jobType == string(harvest.JobClear) || url == nil {
		return nil, ErrNotFound
	}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	f.URL, f.SchemaType = *url, harvest.SchemaType(deref(schemaType))
	f.ETag, f.LastModified = deref(etag), deref(lastModified)
	if f.ETag == "" && f.LastModified == "" {
		return nil, ErrNotFound
	}
	return f, nil
}
