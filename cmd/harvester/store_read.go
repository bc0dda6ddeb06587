package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/store"
)

// storeFlags are the flags of the commands that only read the store (source list, job list,
// job show, duplicates): where the store is and the output format, nothing of the bus, the
// index or the stages.
type storeFlags struct {
	flagEnv
	databaseURL string
	dataDir     string
	format      string
}

func (f *storeFlags) register(cmd *cobra.Command) {
	f.bind(cmd, &f.databaseURL, "database-url")
	f.bind(cmd, &f.dataDir, "data-dir")
	cmd.Flags().StringVar(&f.format, "format", "text", "output: text or json (the API's fields)")
}

// storeHelp says which store a read command will use, from the environment.
func storeHelp() string {
	dbEnv := envName("database-url")
	if os.Getenv(dbEnv) != "" {
		return "Store in use: Postgres from " + dbEnv + " (unset it to use SQLite in the data directory).\n"
	}
	dir := (&flagEnv{}).envString("data-dir")
	return "Store in use: the SQLite database " + filepath.Join(dir, "harvester.db") +
		" (set " + dbEnv + " or --database-url to use Postgres).\n"
}

// withStore checks --format, opens the store (migrating it, as every command does), runs fn on
// it and closes it; an error is the flag's, the open's or fn's.
func (f *storeFlags) withStore(ctx context.Context, fn func(store.Store) error) error {
	if f.format != "text" && f.format != "json" {
		return usageError{fmt.Errorf("--format: %q is not text or json", f.format)}
	}
	st, err := pipeline.OpenStore(ctx, pipeline.Config{DatabaseURL: f.databaseURL, DataDir: f.dataDir})
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

// storeName says which database the command used, without the URL's credentials.
func (f *storeFlags) storeName() string {
	return (&serviceFlags{databaseURL: f.databaseURL, dataDir: f.dataDir}).storeName()
}

// findSource is the source whose id, name or URL is ref; an error names ref and the store.
func (f *storeFlags) findSource(ctx context.Context, st store.Store, ref string) (*store.Source, error) {
	if id, err := uuid.Parse(ref); err == nil {
		src, err := st.SourceGet(ctx, id.String())
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("there is no source with id %s in %s", ref, f.storeName())
		}
		return src, err
	}
	var found *store.Source
	err := eachSource(ctx, st, func(src *store.Source) {
		if found == nil && (src.Name == ref || src.URL == ref) {
			found = src
		}
	})
	if err == nil && found == nil {
		err = fmt.Errorf("there is no source with id, name or URL %q in %s", ref, f.storeName())
	}
	return found, err
}

// eachSource calls fn with every source, by name.
func eachSource(ctx context.Context, st store.Store, fn func(*store.Source)) error {
	for offset := 0; ; offset += store.DefaultLimit {
		srcs, total, err := st.SourceList(ctx, &store.SourceListParams{
			PageParams: store.PageParams{Limit: store.DefaultLimit, Offset: offset}})
		if err != nil {
			return fmt.Errorf("list sources: %w", err)
		}
		for _, src := range srcs {
			fn(src)
		}
		if len(srcs) == 0 || offset+len(srcs) >= total {
			return nil
		}
	}
}

// listJSON is the envelope of a --format json list: the API's items and total.
type listJSON[T any] struct {
	Items []T `json:"items"`
	Total int `json:"total"`
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// timeText is t in UTC as RFC 3339, or "-" for none.
func timeText(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
