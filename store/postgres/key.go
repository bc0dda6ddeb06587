package postgres

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// unsafeName is what DatabaseKey replaces with '_': anything but letters, digits, '.' and '-'.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

// DatabaseKey names the database a Postgres URL (or keyword/value connection string, as
// Open takes) points at, for a file name: "postgres-<host>-<port>-<database>", e.g.
// "postgres-127.0.0.1-5432-harvester", and "-<search_path>" after it when the URL sets the
// search_path parameter (its tables are that schema's: a catalog of its own), with every
// character but letters, digits, '.' and '-' replaced by '_' (a Unix socket directory's
// slashes, say). The user, password and other options do not count: two URLs of the same
// database give the same key. It fails only when the URL
// does not parse (pgconn.ParseConfig, whose error shows the URL with its password redacted).
func DatabaseKey(databaseURL string) (string, error) {
	cfg, err := pgconn.ParseConfig(databaseURL)
	if err != nil {
		return "", fmt.Errorf("database URL does not parse: %w", err)
	}
	parts := []string{cfg.Host, strconv.Itoa(int(cfg.Port)), cfg.Database}
	if schema := cfg.RuntimeParams["search_path"]; schema != "" {
		parts = append(parts, schema)
	}
	key := "postgres"
	for _, p := range parts {
		key += "-" + unsafeName.ReplaceAllString(p, "_")
	}
	return key, nil
}
