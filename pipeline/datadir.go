package pipeline

import (
	"errors"
	"fmt"
	"slices"

	"github.com/harvester-dev/harvester/internal/dirlock"
	"github.com/harvester-dev/harvester/search"
)

// usesDataDir says whether a process of cfg runs something in DataDir that only one process at
// a time may run: the in-process NATS server (no NATSURL), or the bleve index (no OpenSearchURL,
// opened by a process that runs SYNC or the API). Its SQLite file alone is not one of them:
// SQLite serves several processes.
func usesDataDir(cfg Config) bool {
	return cfg.NATSURL == "" || (cfg.OpenSearchURL == "" && cfg.SearchIndex != "none" &&
		(slices.Contains(cfg.Stages, StageSync) || cfg.API != nil))
}

// lockDataDir holds cfg.DataDir for this process (dirlock): a second process that would run
// the same in-process NATS server or bleve index is refused at once, with a sentence naming
// this one, instead of sharing a JetStream store or waiting on the index's lock and writing
// documents to a generation the other one replaces.
func lockDataDir(cfg Config) (*dirlock.Lock, error) {
	l, err := dirlock.Acquire(cfg.DataDir)
	var held *dirlock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("data directory %w: one process at a time may use a data directory's in-process "+
			"NATS server and bleve index. Wait for that process to end or stop it, send the request to its API "+
			"if it serves one, or run both processes on shared services (a database, a NATS and an OpenSearch URL)", err)
	}
	return l, err
}

// lockedIndex is a bleve index that holds its data directory until it is closed.
type lockedIndex struct {
	search.Index
	lock *dirlock.Lock
}

// Close closes the index, then lets go of the data directory.
func (x lockedIndex) Close() error {
	return errors.Join(x.Index.Close(), x.lock.Release())
}
