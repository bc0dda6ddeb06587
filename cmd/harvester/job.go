package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/store"
)

func jobCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "job",
		Short: "Look after harvest jobs",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(jobCancelCommand())
	return cmd
}

func jobCancelCommand() *cobra.Command {
	var f serviceFlags
	cmd := &cobra.Command{
		Use:   "cancel JOB_ID",
		Short: "End an unfinished job in error, so that its source can run again",
		Long: `End an unfinished job (new or in_progress) in status error, with a job error of type
CancelledJob, and print it. A source has at most one unfinished job: when the process running a
job died (killed, out of memory, machine lost), its job stays in progress and refuses the
source's next run until it is cancelled. Stages still holding records of the job drop them.

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

func (f *serviceFlags) cancelJob(ctx context.Context, out io.Writer, jobID string) error {
	st, err := f.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	job, err := st.JobGet(ctx, jobID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("job cancel: there is no job %q in %s", jobID, f.storeName())
	}
	if err != nil {
		return fmt.Errorf("job cancel: get job %s: %w", jobID, err)
	}
	if job.Status.Finished() {
		return fmt.Errorf("job cancel: job %s already ended in %s at %s; nothing to cancel", job.ID, job.Status,
			finishedAt(job))
	}
	job, err = st.JobFail(ctx, &store.JobFailParams{JobID: jobID, Type: "CancelledJob",
		Message: fmt.Sprintf("cancelled with 'harvester job cancel' (it was %s since %s)", job.Status,
			job.CreatedAt.UTC().Format(time.RFC3339))})
	if err != nil {
		return fmt.Errorf("job cancel: end job %s: %w", jobID, err)
	}
	location := job.SourceID
	if src, err := st.SourceGet(ctx, job.SourceID); err == nil {
		location = src.URL
	}
	return printReport(ctx, out, st, job, location, "text")
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
