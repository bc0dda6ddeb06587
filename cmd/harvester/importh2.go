package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/h2import"
)

type importH2Flags struct {
	serviceFlags
	from, format string
	rewrite      []string
}

func importH2Command() *cobra.Command {
	var f importH2Flags
	cmd := &cobra.Command{
		Use:   "import-h2 --from postgres://…",
		Short: "Import the catalog of a Data.gov Harvesting 2.0 database, so that the first harvest changes nothing",
		Long: `Read a Data.gov Harvesting 2.0 (H2.0) Postgres database (read-only) and write its organizations,
harvest sources (with frequency and notification settings), the current record of every live
dataset (H2.0's newest successful record per identifier, with its source_raw and H2.0's
source_hash), the jobs that wrote them and the datasets with their slugs into Harvester's store,
keeping H2.0's ids. Running it again writes nothing ("0 changed"). The first harvest of an
imported source counts every record H2.0 had unchanged as unchanged: COMPARE accepts H2.0's
hash of an imported record. Run harvester reindex afterwards to fill the search index.

Each source is written in one transaction with its organization, jobs, records and datasets:
an import that stops (an error, a kill) leaves each source imported whole or absent, and
running it again completes it. An imported source is not due at once: its next run is one
frequency after the import. A row that breaks a rule the API applies (a source url that is not
an absolute http(s) URL, an empty organization name or slug, ...) or that no harvest writes (an
id that is not a UUID, an empty dataset slug, a dcat that is not a JSON object) is listed as
"error: TABLE ID: why" and not imported, nor is what depends on it (a source's jobs, records
and datasets). A database without H2.0's tables and columns is refused before anything is
written, naming what it lacks.

--rewrite-url OLD=NEW gives the source whose H2.0 url is OLD the url NEW (repeatable).

Exit status: 0 when every row was imported, 1 when some rows could not be (listed), the --from
database is not H2.0's or the databases could not be read or written, 2 for bad arguments.

` + servicesHelp(),
		Example: `  harvester import-h2 --from postgres://h2@db.example.gov:5432/harvester
  harvester import-h2 --from "$H2_DATABASE_URL" --rewrite-url http://old.example.gov/data.json=https://new.example.gov/data.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			st, err := f.openStore(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			rep, runErr := h2import.Run(cmd.Context(), cfg, st)
			if rep != nil {
				if err := printImportReport(cmd, f.format, rep); err != nil {
					return err
				}
			}
			if runErr != nil {
				return runErr
			}
			if rep.ErrorCount > 0 {
				return fmt.Errorf("%d rows could not be imported", rep.ErrorCount)
			}
			return nil
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "the H2.0 Postgres database URL (required; only read)")
	fl.StringArrayVar(&f.rewrite, "rewrite-url", nil, "OLD=NEW: the source whose H2.0 url is OLD gets the url NEW (repeatable)")
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	return cmd
}

// config is the import's configuration from the flags; a usageError names a bad flag.
func (f *importH2Flags) config() (h2import.Config, error) {
	cfg := h2import.Config{From: f.from, RewriteURLs: map[string]string{}}
	if f.from == "" {
		return cfg, usageError{errors.New("--from: the H2.0 database URL is required")}
	}
	if f.format != "text" && f.format != "json" {
		return cfg, usageError{fmt.Errorf("--format: %q is not text or json", f.format)}
	}
	for _, r := range f.rewrite {
		old, to, ok := strings.Cut(r, "=")
		if !ok || old == "" || to == "" {
			return cfg, usageError{fmt.Errorf("--rewrite-url: %q is not OLD=NEW", r)}
		}
		cfg.RewriteURLs[old] = to
	}
	return cfg, nil
}

// printImportReport writes rep to cmd's output: indented JSON (importReport) for format json,
// else its summary line and one "  error: …" line per row not imported.
func printImportReport(cmd *cobra.Command, format string, rep *h2import.Report) error {
	out := cmd.OutOrStdout()
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(importReport{Report: rep, Summary: rep.String(), Changed: rep.Changed()})
	}
	fmt.Fprintln(out, rep.String())
	for _, e := range rep.Errors {
		fmt.Fprintln(out, "  error:", e)
	}
	return nil
}

// importReport is import-h2's --format json output.
type importReport struct {
	*h2import.Report
	Summary string `json:"summary"`
	Changed int    `json:"changed"`
}
