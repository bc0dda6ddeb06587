package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harvester-dev/harvester/router"
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

// ConnectBus connects to the NATS server at natsURL as the deployment of cfg (NATSPrefix,
// StreamReplicas, Retention: how long the failed stream keeps a message) whose database is st's: its streams are stamped with st.DatabaseID, and a
// connection to streams stamped with another database fails with router.ErrOtherDeployment,
// whose sentence names both databases and the fix (another NATSPrefix). With cfg.NATSURL ""
// (natsURL is the in-process server, which no other process reaches) nothing is stamped or
// checked, so that one data directory may serve another database later. Close the bus when
// done.
func ConnectBus(ctx context.Context, cfg Config, st store.Store, natsURL string) (*router.Bus, error) {
	opts := []router.ConnectOption{router.WithStreamReplicas(cmp.Or(cfg.StreamReplicas, 1)),
		router.WithPrefix(cmp.Or(cfg.NATSPrefix, router.DefaultPrefix)), router.WithFailedMaxAge(cfg.Retention)}
	if cfg.NATSURL != "" {
		id, err := st.DatabaseID(ctx)
		if err != nil {
			return nil, err
		}
		opts = append(opts, router.WithDatabaseID(id))
	}
	return router.Connect(ctx, natsURL, opts...)
}

// OpenSearch opens the search index cfg selects: OpenSearch at OpenSearchURL
// (opensearch.Open), else bleve in BleveDir (per database), holding DataDir for this process
// until the index is closed (another process holding it is refused at once: lockDataDir); nil
// (and no error) for SearchIndex "none". A SearchIndex that breaks the naming rule (search.CheckIndexName) is an
// error wrapping ErrConfig. Close the index when done.
func OpenSearch(ctx context.Context, cfg Config) (search.Index, error) {
	return openSearch(ctx, cfg, opensearch.Open)
}

// OpenSearchToRebuild opens the index as OpenSearch does, but takes an OpenSearch alias in a
// state that Open refuses (on several indices, or without a write index:
// opensearch.OpenToRebuild), for a full search.Reindex to repair.
func OpenSearchToRebuild(ctx context.Context, cfg Config) (search.Index, error) {
	return openSearch(ctx, cfg, opensearch.OpenToRebuild)
}

func openSearch(ctx context.Context, cfg Config,
	openRemote func(ctx context.Context, url, alias string) (*opensearch.Index, error)) (search.Index, error) {
	if err := checkSearchIndex(cfg.SearchIndex); err != nil {
		return nil, err
	}
	name := cmp.Or(cfg.SearchIndex, opensearch.DefaultAlias)
	switch {
	case name == "none":
		return nil, nil
	case cfg.OpenSearchURL != "":
		x, err := openRemote(ctx, cfg.OpenSearchURL, name)
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

// checkSearchIndex applies search.CheckIndexName to a SearchIndex other than "" (the default)
// and "none", wrapping ErrConfig.
func checkSearchIndex(name string) error {
	if name == "" || name == "none" {
		return nil
	}
	if err := search.CheckIndexName(name); err != nil {
		return fmt.Errorf("%w: SearchIndex: %w", ErrConfig, err)
	}
	return nil
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
