package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/store"
)

func jobCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "job",
		Short: "Look after harvest jobs",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(jobListCommand(), jobShowCommand(), jobCancelCommand())
	return cmd
}

func jobCancelCommand() *cobra.Command {
	var f serviceFlags
	cmd := &cobra.Command{
		Use:   "cancel JOB_ID",
		Short: "End an unfinished job in error, so that its source can run again, and report it",
		Long: `End an unfinished job (new or in_progress) in status error, with a job error of type
CancelledJob, and print it. A source has at most one unfinished job: when the process running a
job died (killed, out of memory, machine lost), its job stays in progress and refuses the
source's next run until it is cancelled. Stages still holding records of the job drop them.

The job is reported as one cancelled through the API or the web UI is: its harvest report event
(harvest.v1.report), its email to the source's recipients and harvester_jobs_finished_total
{status="error"} come from the job aggregator (the report stage). With --nats-url (NATS_URL) the
aggregator of the running serve or worker does it; the command waits up to 10 s for the report
event and says whether it came (if no aggregator runs, the report follows when one starts).
Without it (the embedded default) the command runs the aggregator itself on the in-process server
in --data-dir, and sends the email when HARVESTER_SMTP_HOST and HARVESTER_SMTP_FROM are set (as
serve does); do not run it so while a serve uses the same --data-dir: cancel through that
server's web UI or API instead.

Exit status: 0 when the job was cancelled, 1 when there is no such job or it had already ended.

` + servicesHelp(),
		Example: `  harvester job cancel 0fbc9aa8-5d1e-4c3b-9f1a-2b7c8d9e0f11`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.cancelJob(cmd.Context(), cmd.OutOrStdout(), args[0])
		},
	}
	f.register(cmd)
	return cmd
}

// cancelJob ends the job through jobs.Control.Cancel, which tells the aggregator, on the bus
// of --nats-url, or on the in-process one with the aggregator running here (cancelBus), and
// waits for the report event.
func (f *serviceFlags) cancelJob(ctx context.Context, out io.Writer, jobID string) error {
	st, bus, closeAll, err := f.cancelBus(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	reports, unsubscribe, err := bus.Reports()
	if err != nil {
		return err
	}
	defer unsubscribe()
	job, err := st.JobGet(ctx, jobID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("job cancel: there is no job %q in %s", jobID, f.storeName())
	}
	if err != nil {
		return fmt.Errorf("job cancel: get job %s: %w", jobID, err)
	}
	job, err = jobs.New(st, bus).Cancel(ctx, jobID, fmt.Sprintf("cancelled with 'harvester job cancel' (it was %s since %s)",
		job.Status, job.CreatedAt.UTC().Format(time.RFC3339)))
	switch {
	case errors.Is(err, jobs.ErrFinished):
		return fmt.Errorf("job cancel: job %s already ended in %s at %s; nothing to cancel", job.ID, job.Status,
			finishedAt(job))
	case err != nil && job == nil:
		return fmt.Errorf("job cancel: %w", err)
	}
	location := job.SourceID
	if src, err := st.SourceGet(ctx, job.SourceID); err == nil {
		location = src.URL
	}
	if perr := printReport(ctx, out, st, job, location, "text"); perr != nil {
		return perr
	}
	if err != nil { // cancelled, but the aggregator was not told
		return fmt.Errorf("job cancel: job %s was cancelled, but its report was not sent: %w", jobID, err)
	}
	if jobs.AwaitReport(ctx, reports, jobID, reportGrace) != nil {
		fmt.Fprintln(out, "Reported: the job aggregator published the harvest report event and sent the email, if any.")
	} else {
		fmt.Fprintln(out, "Not reported yet: no job aggregator (serve, or a worker with the report stage) answered "+
			"within 10s; the report event and the email follow when one runs.")
	}
	return nil
}

// cancelBus opens what cancelJob needs: the store and the bus of --nats-url, or, without one,
// the pipeline of the embedded default running the aggregator alone (its email from the
// HARVESTER_SMTP_* environment, as serve's). closeAll releases them.
func (f *serviceFlags) cancelBus(ctx context.Context) (store.Store, *router.Bus, func(), error) {
	if f.natsURL != "" {
		if err := router.CheckPrefix(f.natsPrefix); err != nil {
			return nil, nil, nil, usageError{fmt.Errorf("--nats-prefix: %w", err)}
		}
		st, err := f.openStore(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		bus, err := pipeline.ConnectBus(ctx, f.config(nil), st, f.natsURL)
		if err != nil {
			st.Close()
			return nil, nil, nil, err
		}
		return st, bus, func() { bus.Close(); st.Close() }, nil
	}
	logger, err := f.logger()
	if err != nil {
		return nil, nil, nil, err
	}
	cfg := f.config(logger)
	mail := f.smtpFromEnv()
	if err := f.envErr(); err != nil {
		return nil, nil, nil, err
	}
	mail.BaseURL = f.envString("base-url") // links in the email, as serve's --base-url
	cfg.Stages, cfg.Mail = []string{pipeline.StageReport}, &mail
	pl, err := startConfig(ctx, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	return pl.Store(), pl.Bus(), pl.Close, nil
}

// storeName says which database the command used, without the URL's credentials.
func (f *serviceFlags) storeName() string {
	if f.databaseURL != "" {
		return "the Postgres database of --database-url"
	}
	return "the SQLite database " + filepath.Join(f.dataDir, "harvester.db")
}

func finishedAt(job *store.HarvestJob) string {
	if job.FinishedAt == nil {
		return "an unknown time"
	}
	return job.FinishedAt.UTC().Format(time.RFC3339)
}
