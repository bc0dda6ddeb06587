package postgres_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store/postgres"
)

// DatabaseKey names host, port, database and search_path, not the user, password or other
// options, for a URL and a keyword/value string alike.
func TestDatabaseKey(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{
		"postgres://harvester:secret@db.example:5433/catalog?sslmode=disable": "postgres-db.example-5433-catalog",
		"postgres://other@db.example:5433/catalog":                            "postgres-db.example-5433-catalog",
		"host=db.example port=5433 dbname=catalog user=x":                     "postgres-db.example-5433-catalog",
		"postgres://h@db.example:5433/catalog?search_path=t_1":                "postgres-db.example-5433-catalog-t_1",
		"postgres://h@db.example/other":                                       "postgres-db.example-5432-other",
		"host=/var/run/postgresql dbname=catalog":                             "postgres-_var_run_postgresql-5432-catalog",
	} {
		got, err := postgres.DatabaseKey(url)
		require.NoError(t, err, url)
		require.Equal(t, want, got, url)
	}
	_, err := postgres.DatabaseKey("postgres://h@[bad")
	require.Error(t, err)
}
