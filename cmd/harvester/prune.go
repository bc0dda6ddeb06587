package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/retention"
	"github.com/harvester-dev/harvester/store"
)

// retentionDays is a retention in whole days ("90d"), the form --retention documents.
var retentionDays = regexp.MustCompile(`^([0-9]+)d$`)

// parseRetention reads a retention: whole days such as 90d, a Go duration such as 36h or 10m,
// or 0 (keep everything); never negative.
func parseRetention(s string) (time.Duration, error) {
	if m := retentionDays.FindStringSubmatch(s); m != nil {
		days, err := strconv.Atoi(m[1])
		if err != nil || days > 100*365 {
			return 0, errors.New("not a retention such as 90d, 36h or 0")
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, errors.New("not a retention such as 90d, 36h or 0")
	}
	return d, nil
}

// formatRetention is d as parseRetention reads it: in days when it is whole days.
func formatRetention(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
	if d == 0 {
		return "0"
	}
	return d.String()
}

// retentionFlag is --retention as a pflag.Value.
type retentionFlag time.Duration

func (r *retentionFlag) String() string { return formatRetention(time.Duration(*r)) }
func (r *retentionFlag) Type() string   { return "retention" }
func (r *retentionFlag) Set(s string) error {
	d, err := parseRetention(s)
	if err != nil {
		return err
	}
	*r = retentionFlag(d)
	return nil
}

// registerRetention adds --retention (flagTable), which every command that connects to the
// services shares: the scheduler's leader prunes with it, and every process sets the failed
// stream's max age from it.
func (f *serviceFlags) registerRetention(cmd *cobra.Command) {
	f.retention = retention.DefaultRetention
	f.bind(cmd, (*retentionFlag)(&f.retention), "retention")
}

func pruneCommand() *cobra.Command {
	var f serviceFlags
	var dryRun bool
	var format string
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Delete the history older than --retention now, as the scheduler does every hour",
		Long: `Delete the history older than --retention (default 90d): record versions superseded longer ago,
with their error rows, and jobs finished longer ago whose records are all gone, with their rows.
Never a dataset's record, the newest version of each record, the newest one with a known outcome,
each source's 20 newest jobs, or any other table (docs/retention.md). The scheduler's leader
(serve, scheduler) does the same every hour; run this once after lowering --retention, or with
--dry-run to see what would go: it counts and deletes nothing.

` + servicesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("--format: %q is not text or json", format)}
			}
			logger, err := f.logger()
			if err != nil {
				return err
			}
			st, err := f.openStore(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			pr, err := retention.New(retention.Config{Retention: f.retention}, st, logger, nil)
			if err != nil {
				return usageError{err}
			}
			rep, err := pr.Run(cmd.Context(), time.Now(), dryRun)
			if err != nil {
				return err
			}
			return writePruneReport(cmd.OutOrStdout(), rep, format)
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "count what would be deleted; delete nothing")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// pruneJSON is `harvester prune --format json`'s output.
type pruneJSON struct {
	Retention        string         `json:"retention"`
	RetentionSeconds int64          `json:"retention_seconds"`
	Before           *time.Time     `json:"before"` // null when the retention keeps everything
	DryRun           bool           `json:"dry_run"`
	Rows             map[string]int `json:"rows"`
	Total            int            `json:"total"`
}

// writePruneReport writes what a prune deleted (or would delete) in format.
func writePruneReport(w io.Writer, rep *retention.Report, format string) error {
	if format == "json" {
		out := pruneJSON{Retention: formatRetention(rep.Retention), RetentionSeconds: int64(rep.Retention / time.Second),
			DryRun: rep.DryRun, Rows: rep.Rows, Total: rep.Total()}
		if !rep.Before.IsZero() {
			out.Before = &rep.Before
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if rep.Retention == 0 {
		_, err := fmt.Fprintln(w, "retention 0 keeps everything: nothing was deleted")
		return err
	}
	verb := "deleted"
	if rep.DryRun {
		verb = "would delete (dry run: nothing was deleted)"
	}
	fmt.Fprintf(w, "retention %s: history older than %s\n%s %d rows:\n", formatRetention(rep.Retention),
		rep.Before.UTC().Format(time.RFC3339), verb, rep.Total())
	for _, t := range store.PruneTables {
		if _, err := fmt.Fprintf(w, "  %-24s %d\n", t, rep.Rows[t]); err != nil {
			return err
		}
	}
	return nil
}
