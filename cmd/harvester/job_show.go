package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

// jobListDefault is how many jobs job list prints without --limit.
const jobListDefault = 50

func jobListCommand() *cobra.Command {
	var f storeFlags
	var source string
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List harvest jobs, newest first",
		Long: `List harvest jobs, newest first: id, source, type, status, record counts (added, updated,
deleted, unchanged, errored) and start and end times. --source keeps one source's jobs (its id,
name or URL). With --format json it prints {"items": [...], "total": N}, each item with the
fields of GET /api/v1/harvest_jobs/{id}.

` + storeHelp(),
		Example: "  harvester job list\n  harvester job list --source https://agency.example.gov/data.json --format json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return usageError{fmt.Errorf("--limit: %d is not a positive number of jobs", limit)}
			}
			return f.withStore(cmd.Context(), func(st store.Store) error {
				return f.listJobs(cmd.Context(), cmd.OutOrStdout(), st, source, limit)
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&source, "source", "", "only this source's jobs: its id, name or URL")
	cmd.Flags().IntVar(&limit, "limit", jobListDefault, "print at most this many jobs, the newest")
	return cmd
}

func (f *storeFlags) listJobs(ctx context.Context, out io.Writer, st store.Store, source string, limit int) error {
	p := store.JobListParams{PageParams: store.PageParams{Limit: limit}}
	names := map[string]string{} // source id → name
	if source != "" {
		src, err := f.findSource(ctx, st, source)
		if err != nil {
			return fmt.Errorf("job list: --source: %w", err)
		}
		p.SourceID, names[src.ID] = src.ID, src.Name
	}
	list, total, err := st.JobList(ctx, &p)
	if err != nil {
		return fmt.Errorf("job list: %w", err)
	}
	items := make([]api.Job, 0, len(list))
	for _, j := range list {
		item, err := api.JobOf(ctx, st, j)
		if err != nil {
			return fmt.Errorf("job list: job %s: %w", j.ID, err)
		}
		items = append(items, item)
	}
	if f.format == "json" {
		return writeJSON(out, listJSON[api.Job]{Items: items, Total: total})
	}
	if total == 0 {
		fmt.Fprintln(out, "no harvest jobs")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB ID\tSOURCE\tTYPE\tSTATUS\tADDED\tUPDATED\tDELETED\tUNCHANGED\tERRORED\tSTARTED\tFINISHED")
	for _, j := range items {
		name, ok := names[j.SourceID]
		if !ok {
			name = j.SourceID
			if src, err := st.SourceGet(ctx, j.SourceID); err == nil {
				name = src.Name
			}
			names[j.SourceID] = name
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", j.ID, name, j.JobType, j.Status,
			j.Added, j.Updated, j.Deleted, j.Unchanged, j.Errored, timeText(&j.DateCreated), timeText(j.DateFinished))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if total > len(items) {
		fmt.Fprintf(out, "(the newest %d of %d jobs; --limit shows more)\n", len(items), total)
	}
	return nil
}

func jobShowCommand() *cobra.Command {
	var f storeFlags
	cmd := &cobra.Command{
		Use:   "show JOB_ID",
		Short: "Show one harvest job: its counts, job errors and first record errors",
		Long: `Show one harvest job as the harvest command reports it: its source, type, status, record
counts, start and end times, its job errors, and its first record error and warning rows. With
--format json it prints the fields of GET /api/v1/harvest_jobs/{id} and source_name, job_errors,
record_errors and warnings (each {"total": N, "rows": [...]}).

Exit status: 0 when the job was shown, 1 when there is no such job or JOB_ID is not a job id.

` + storeHelp(),
		Example: "  harvester job show 0fbc9aa8-5d1e-4c3b-9f1a-2b7c8d9e0f11",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.withStore(cmd.Context(), func(st store.Store) error {
				return f.showJob(cmd.Context(), cmd.OutOrStdout(), st, args[0])
			})
		},
	}
	f.register(cmd)
	return cmd
}

// jobShowJSON is job show's --format json: the API's job and what the harvest report adds.
type jobShowJSON struct {
	api.Job
	SourceName   string     `json:"source_name"`
	JobErrors    []string   `json:"job_errors"` // "Type: message", oldest first
	RecordErrors reportRows `json:"record_errors"`
	Warnings     reportRows `json:"warnings"`
}

func (f *storeFlags) showJob(ctx context.Context, out io.Writer, st store.Store, ref string) error {
	id, err := uuid.Parse(ref)
	if err != nil {
		return fmt.Errorf("job show: %q is not a job id (a UUID such as 0fbc9aa8-5d1e-4c3b-9f1a-2b7c8d9e0f11)", ref)
	}
	job, err := st.JobGet(ctx, id.String())
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("job show: there is no job %s in %s", id, f.storeName())
	}
	if err != nil {
		return fmt.Errorf("job show: get job %s: %w", id, err)
	}
	name, location := job.SourceID, job.SourceID
	if src, err := st.SourceGet(ctx, job.SourceID); err == nil {
		name, location = src.Name, src.URL
		if src.Name != src.URL {
			location = src.Name + " <" + src.URL + ">"
		}
	}
	if f.format == "text" {
		return printReport(ctx, out, st, job, location, "text")
	}
	j, err := api.JobOf(ctx, st, job)
	if err != nil {
		return fmt.Errorf("job show: %w", err)
	}
	view, err := jobs.View(ctx, st, job)
	if err != nil {
		return fmt.Errorf("job show: %w", err)
	}
	show := jobShowJSON{Job: j, SourceName: name, JobErrors: []string{}}
	for _, e := range view.JobErrors {
		show.JobErrors = append(show.JobErrors, e.Type+": "+e.Message)
	}
	if show.RecordErrors, err = listReportRows(ctx, st, job.ID, harvest.SeverityError); err != nil {
		return fmt.Errorf("job show: %w", err)
	}
	if show.Warnings, err = listReportRows(ctx, st, job.ID, harvest.SeverityWarning); err != nil {
		return fmt.Errorf("job show: %w", err)
	}
	return writeJSON(out, show)
}
