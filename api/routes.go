package api

import "net/http"

// access says who may call a route.
type access int

const (
	open   access = iota // anyone: probes, metrics, the OpenAPI document
	read                 // anyone, unless Config.ProtectReads
	write                // callers with the API key
	public               // the public catalog: anyone, unless Config.PrivateCatalog; CORS * and cacheable
)

// handlerFunc is an endpoint; a returned error is answered by writeError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route is one row of the route table.
type route struct {
	pattern string // "METHOD /path", an http.ServeMux pattern
	access  access
	handle  handlerFunc
}

// routes is every route of the API. POST /api/v1/validate stores nothing but is a write: it
// makes the server fetch any URL it is given, which is not for anonymous callers.
func (s *server) routes() []route {
	return append(s.healthRoutes(), []route{
		{"GET /api/v1/openapi.json", open, s.openAPI},

		{"GET /api/v1/organizations", read, s.organizationList},
		{"POST /api/v1/organizations", write, s.organizationCreate},
		{"GET /api/v1/organizations/{id}", read, s.organizationGet},
		{"PUT /api/v1/organizations/{id}", write, s.organizationUpdate},
		{"DELETE /api/v1/organizations/{id}", write, s.organizationDelete},
		{"GET /api/v1/organizations/{id}/quality", public, s.organizationQuality},
		{"GET /api/v1/organizations/{id}/quality/history", public, s.organizationQualityHistory},

		{"GET /api/v1/harvest_sources", read, s.sourceList},
		{"POST /api/v1/harvest_sources", write, s.sourceCreate},
		{"GET /api/v1/harvest_sources/{id}", read, s.sourceGet},
		{"PUT /api/v1/harvest_sources/{id}", write, s.sourceUpdate},
		{"DELETE /api/v1/harvest_sources/{id}", write, s.sourceDelete},
		{"POST /api/v1/harvest_sources/{id}/jobs", write, s.sourceJobCreate},
		{"GET /api/v1/harvest_sources/{id}/quality", public, s.sourceQuality},
		{"GET /api/v1/harvest_sources/{id}/quality/history", public, s.sourceQualityHistory},
		{"GET /api/v1/harvest_sources/{id}/broken_links", read, s.sourceBrokenLinks},

		{"GET /api/v1/harvest_jobs", read, s.jobList},
		{"GET /api/v1/harvest_jobs/{id}", read, s.jobGet},
		{"POST /api/v1/harvest_jobs/{id}/cancel", write, s.jobCancel},
		{"POST /api/v1/harvest_jobs/{id}/replay", write, s.jobReplay},
		{"GET /api/v1/harvest_jobs/{id}/record_errors", read, s.recordErrorList},
		{"GET /api/v1/harvest_jobs/{id}/job_errors", read, s.jobErrorList},
		{"GET /api/v1/harvest_jobs/{id}/quality", read, s.jobQuality},

		{"GET /api/v1/harvest_records/{id}", read, s.recordGet},

		{"GET /api/v1/cross_source_duplicates", read, s.crossSourceDuplicateList},

		{"GET /api/v1/datasets/{id}/quality", public, s.datasetQuality},
		{"GET /api/v1/quality", public, s.catalogQuality},
		{"GET /api/v1/quality/history", public, s.catalogQualityHistory},

		{"GET /api/v1/search", public, s.searchList},

		{"POST /api/v1/validate", write, s.validate},

		// CKAN's Action API, read actions (ckan.go): where CKAN serves it and where ckanapi posts.
		{"GET /api/3/action/{action}", public, s.ckanAction},
		{"POST /api/3/action/{action}", public, s.ckanAction},
		{"GET /api/action/{action}", public, s.ckanAction},
		{"POST /api/action/{action}", public, s.ckanAction},
	}...)
}

// healthRoutes are the probes and metrics every process serves, with or without the API
// (Health).
func (s *server) healthRoutes() []route {
	return []route{
		{"GET /healthz", open, s.healthz},
		{"GET /readyz", open, s.readyz},
		{"GET /metrics", open, s.serveMetrics},
	}
}
