package postgres_test

import (
	"testing"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/storetest"
)

// TestConformance runs the store conformance suite, each case on a fresh migrated schema.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return dbtest.Store(t) })
}
