package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/bleve"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/postgres"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// OpenStore opens the store cfg selects (Postgres at DatabaseURL, else the SQLite file
// harvester.db in DataDir, created with the directory when missing) and applies pending
// migrations. Close the store when done.
func OpenStore(ctx context.Context, cfg Config) (store.Store, error) {
	var st store.Store
	if cfg.DatabaseURL != "" {
		pg, err := postgres.Open(ctx, cfg.DatabaseURL)
		if err != nil {
			return nil, err
		}
		st = pg
	} else {
		dir := cmp.Or(cfg.DataDir, "harvester-data")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		lite, err := sqlite.Open(ctx, filepath.Join(dir, "harvester.db"))
		if err != nil {
			return nil, err
		}
		st = lite
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// OpenSearch opens the search index cfg selects: OpenSearch at OpenSearchURL, else bleve in
// BleveDir (per database), holding DataDir for this process until the index is closed (another
// process holding it is refused at once: lockDataDir); nil (and no error) for SearchIndex
// "none". A SearchIndex that is not a plain name (a path) is an error wrapping ErrConfig.
// Close the index when done.
func OpenSearch(ctx context.Context, cfg Config) (search.Index, error) {
	name := cmp.Or(cfg.SearchIndex, opensearch.DefaultAlias)
	switch {
	case name == "none":
		return nil, nil
	case strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, "."):
		return nil, fmt.Errorf("%w: SearchIndex %q is not a name", ErrConfig, name)
	case cfg.OpenSearchURL != "":
		x, err := opensearch.Open(ctx, cfg.OpenSearchURL, name)
		if err != nil {
			return nil, err
		}
		return x, nil
	}
	dir, err := BleveDir(cfg)
	if err != nil {
		return nil, err
	}
	lock, err := lockDataDir(cfg.withDefaults())
	if err != nil {
		return nil, err
	}
	x, err := bleve.Open(dir)
	if err != nil {
		_ = lock.Release()
		return nil, err
	}
	return lockedIndex{Index: x, lock: lock}, nil
}

// BleveDir is the directory of the bleve index cfg selects when it has no OpenSearchURL: with
// the SQLite store DataDir/search/<SearchIndex>; with Postgres, one directory per database,
// DataDir/search/<postgres.DatabaseKey(DatabaseURL)>/<SearchIndex> (e.g.
// harvester-data/search/postgres-127.0.0.1-5432-harvester/harvester-datasets), so that two databases
// served from one data directory do not share one index. It fails, wrapping ErrConfig, when
// DatabaseURL does not parse.
func BleveDir(cfg Config) (string, error) {
	dir := filepath.Join(cmp.Or(cfg.DataDir, "harvester-data"), "search")
	if cfg.DatabaseURL != "" {
		key, err := postgres.DatabaseKey(cfg.DatabaseURL)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrConfig, err)
		}
		dir = filepath.Join(dir, key)
	}
	return filepath.Join(dir, cmp.Or(cfg.SearchIndex, opensearch.DefaultAlias)), nil
}

// embeddedNATSDir is where the in-process nats-server keeps its JetStream data.
func embeddedNATSDir(cfg Config) string { return filepath.Join(cfg.DataDir, "nats") }
