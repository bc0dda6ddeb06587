package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/trigger"
)

type harvestFlags struct {
	serviceFlags
	url, file, schemaType, jobType, format string
	timeout                                time.Duration
}

func harvestCommand() *cobra.Command {
	var f harvestFlags
	cmd := &cobra.Command{
		Use:   "harvest (--url URL | --file PATH) --schema-type TYPE",
		Short: "Run one harvest job of a DCAT-US data.json source through every stage and print its report",
		Long: `Run one harvest job of a document source (a DCAT-US 1.1 data.json) through every stage
(extract, compare, transform, validate, sync, report) in this process, and print the job report.

The source is created on first use, keyed by its URL (or the file's absolute path), so the
next run of the same source compares against what the last one stored.

Exit status: 0 when the job completed (record errors included), 1 when it ended in error,
2 for bad arguments.

` + servicesHelp(),
		Example: `  harvester harvest --url https://agency.example.gov/data.json --schema-type "dcatus1.1: federal"
  harvester harvest --file ./data.json --schema-type "dcatus1.1: non-federal" --job-type validate --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd.Context(), cmd.OutOrStdout()) },
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", "the source's http(s) URL")
	fl.StringVar(&f.file, "file", "", "a local data.json file (the source is keyed by its absolute path)")
	fl.StringVar(&f.schemaType, "schema-type", "", `"dcatus1.1: federal" or "dcatus1.1: non-federal"`)
	fl.StringVar(&f.jobType, "job-type", "harvest", "harvest, force_harvest, validate or clear")
	fl.StringVar(&f.format, "format", "text", "report format: text or json")
	fl.DurationVar(&f.timeout, "timeout", 2*time.Hour, "give up waiting for the job after this long")
	return cmd
}

func (f *harvestFlags) params() (trigger.Params, error) {
	p := trigger.Params{SourceType: harvest.SourceDocument}
	switch {
	case (f.url == "") == (f.file == ""):
		return p, usageError{errors.New("give exactly one of --url or --file")}
	case f.file != "":
		abs, err := filepath.Abs(f.file)
		if err != nil {
			return p, usageError{fmt.Errorf("--file: %w", err)}
		}
		p.URL = abs
	default:
		p.URL = f.url
	}
	var err error
	if p.SchemaType, err = harvest.ParseSchemaType(f.schemaType); err != nil {
		return p, usageError{fmt.Errorf("--schema-type: %w", err)}
	}
	if p.JobType, err = harvest.ParseJobType(f.jobType); err != nil {
		return p, usageError{fmt.Errorf("--job-type: %w", err)}
	}
	if f.format != "text" && f.format != "json" {
		return p, usageError{fmt.Errorf("--format: %q is not text or json", f.format)}
	}
	return p, nil
}

func (f *harvestFlags) run(ctx context.Context, out io.Writer) error {
	p, err := f.params()
	if err != nil {
		return err
	}
	logger, err := f.logger()
	if err != nil {
		return err
	}
	st, err := f.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	natsURL, stopBus, err := f.bus()
	if err != nil {
		return err
	}
	defer stopBus()
	r, err := router.New(ctx, router.Config{NATSURL: natsURL, Store: st, Logger: logger,
		Registerer: prometheus.NewRegistry()})
	if err != nil {
		return err
	}
	defer r.Close()
	runErr := make(chan error, 1)
	go func() { runErr <- r.Run(ctx) }()
	select {
	case <-r.Running():
	case err := <-runErr:
		return fmt.Errorf("start stages: %w", err)
	}
	reports, unsubscribe, err := r.Reports()
	if err != nil {
		return err
	}
	defer unsubscribe()
	job, err := trigger.Start(ctx, st, r.Publisher(), p)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	jobID := job.ID
	job, err = trigger.Wait(wctx, st, jobID, 50*time.Millisecond)
	if err != nil {
		// Interrupted or timed out: end the job, so the source is not left with a job in
		// progress that blocks its next run, and the stages drop its remaining records.
		_, _ = st.JobFail(context.WithoutCancel(ctx), &store.JobFailParams{JobID: jobID, Type: "CancelledJob",
			Message: fmt.Sprintf("the harvest command stopped waiting: %v", err)})
		return fmt.Errorf("waiting for job %s: %w", jobID, err)
	}
	awaitReport(wctx, reports, job.ID)
	if err := printReport(ctx, out, st, job, p.URL, f.format); err != nil {
		return err
	}
	if job.Status == harvest.JobError {
		return jobFailed{jobID: job.ID}
	}
	return nil
}

// reportGrace is how long the command waits, after the job finished, for the aggregator to
// publish its report event before stopping the stages.
const reportGrace = 10 * time.Second

func awaitReport(ctx context.Context, reports <-chan *harvest.Report, jobID string) {
	t := time.NewTimer(reportGrace)
	defer t.Stop()
	for {
		select {
		case rep := <-reports:
			if rep.ID == jobID {
				return
			}
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// jobReport is the --format json report: one object.
type jobReport struct {
	JobID    string `json:"job_id"`
	SourceID string `json:"source_id"`
	URL      string `json:"url"`
	JobType  string `json:"job_type"`
	Status   string `json:"status"`
	harvest.Counts
	StartedAt  string   `json:"started_at"`
	FinishedAt string   `json:"finished_at"`
	JobErrors  []string `json:"job_errors"`
}

// recordErrorsShown caps the record errors the text report lists.
const recordErrorsShown = 10

func printReport(ctx context.Context, out io.Writer, st store.Store, job *store.Job, url, format string) error {
	jobErrs, err := st.JobErrorList(ctx, job.ID)
	if err != nil {
		return err
	}
	rep := jobReport{JobID: job.ID, SourceID: job.SourceID, URL: url, JobType: string(job.JobType),
		Status: string(job.Status), Counts: job.Counts,
		StartedAt: job.CreatedAt.UTC().Format(time.RFC3339), JobErrors: []string{}}
	if job.FinishedAt != nil {
		rep.FinishedAt = job.FinishedAt.UTC().Format(time.RFC3339)
	}
	for _, e := range jobErrs {
		rep.JobErrors = append(rep.JobErrors, e.Type+": "+e.Message)
	}
	if format == "json" {
		enc := json.NewEncoder(out)
		return enc.Encode(rep)
	}
	fmt.Fprintf(out, "Harvest job %s (%s) of %s: %s\n", rep.JobID, rep.JobType, url, rep.Status)
	fmt.Fprintf(out, "  total %d: added %d, updated %d, deleted %d, unchanged %d, errored %d (validated %d)\n",
		rep.Total, rep.Added, rep.Updated, rep.Deleted, rep.Unchanged, rep.Errored, rep.Validated)
	fmt.Fprintf(out, "  started %s, finished %s\n", rep.StartedAt, rep.FinishedAt)
	for _, e := range rep.JobErrors {
		fmt.Fprintf(out, "  job error: %s\n", e)
	}
	if job.Errored == 0 {
		return nil
	}
	recErrs, err := st.RecordErrorList(ctx, job.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  %d record errors", len(recErrs))
	if len(recErrs) > recordErrorsShown {
		fmt.Fprintf(out, " (first %d)", recordErrorsShown)
	}
	fmt.Fprintln(out, ":")
	for _, e := range recErrs[:min(len(recErrs), recordErrorsShown)] {
		fmt.Fprintf(out, "    %s %q: %s\n", e.Type, e.Identifier, e.Message)
	}
	return nil
}
