package main

import (
	"os"

	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/search/opensearch"
)

// searchLocation says where the search index of cfg is: "OpenSearch at URL, index NAME",
// "bleve in DIR" (pipeline.BleveDir: a directory per Postgres database), or "none". A
// DATABASE_URL that does not parse is said so; opening the store will fail on it too.
func searchLocation(cfg pipeline.Config) string {
	name := cfg.SearchIndex
	if name == "" {
		name = opensearch.DefaultAlias
	}
	switch {
	case name == "none":
		return "none (--search-index none)"
	case cfg.OpenSearchURL != "":
		return "OpenSearch at " + cfg.OpenSearchURL + ", index " + name
	}
	dir, err := pipeline.BleveDir(cfg)
	if err != nil {
		return "bleve, in a directory named after the database, but " + err.Error()
	}
	return "bleve in " + dir
}

// envSearchLocation is searchLocation of the services the environment selects (servicesHelp).
func envSearchLocation(dataDir string) string {
	return searchLocation(pipeline.Config{DataDir: dataDir, DatabaseURL: os.Getenv(envName("database-url")),
		SearchIndex: os.Getenv(envName("search-index"))})
}
