package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/store/postgres"
)

// serviceFlags are the connection settings every command that runs stages shares.
type serviceFlags struct {
	databaseURL string
	natsURL     string
	logLevel    string
}

func (f *serviceFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.databaseURL, "database-url", os.Getenv("DATABASE_URL"),
		"Postgres URL, e.g. postgres://user@host:5432/harvester (env DATABASE_URL)")
	cmd.Flags().StringVar(&f.natsURL, "nats-url", os.Getenv("NATS_URL"),
		"NATS server with JetStream, e.g. nats://127.0.0.1:4222 (env NATS_URL)")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn or error")
}

func (f *serviceFlags) logger() (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, usageError{fmt.Errorf("--log-level: %w", err)}
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl})), nil
}

// openStore connects to Postgres and applies pending migrations.
func (f *serviceFlags) openStore(ctx context.Context) (*postgres.Store, error) {
	if f.databaseURL == "" {
		return nil, usageError{fmt.Errorf("no database: set DATABASE_URL or --database-url")}
	}
	st, err := postgres.Open(ctx, f.databaseURL)
	if err != nil {
		return nil, err
	}
	if err := st.Migrate(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func migrateCommand() *cobra.Command {
	var f serviceFlags
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the database migrations that have not run yet",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := f.openStore(cmd.Context())
			if err != nil {
				return err
			}
			st.Close()
			fmt.Fprintln(cmd.OutOrStdout(), "database is up to date")
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
