package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

type replayFlags struct {
	serviceFlags
	jobID, stage, since, format string
	timeout                     time.Duration
}

func replayCommand() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay --job JOB_ID [--stage STAGE] [--since TIME]",
		Short: "Send a job's failed records through the pipeline again, once the cause is fixed",
		Long: `Send the records of a job that a stage gave up on (kept 30 days on harvest.v1.failed.<stage>)
through the pipeline again, each to the stage where it failed, run the stages in this process
until every replayed record has settled, and print how many were replayed and the job's counts.

The job's counts are updated exactly: a replayed record that now succeeds moves from errored to
added or updated; one that fails again stays errored, and its new error row replaces the old one.
Each record is sent at most once while its outcome is in flight, however often (or however many
times at once) replay runs. Only a complete job that is its source's newest job is replayed: a
replay of an older job would overwrite the datasets of the newer one (run a harvest instead).

--stage keeps the records that failed in one stage (compare, transform, validate or sync), or
check: the job's link checks that CHECK gave up on (harvest.v1.failed.check), sent to CHECK
again with their URLs not checked since the job was created. They settle nothing of the job,
so replay does not wait for them: whoever runs CHECK (worker --stages check, or serve with link
checks on) checks them. Without --stage both are replayed.

--since keeps the messages stored at or after a time (RFC 3339, or a duration such as 2h: that
long ago).

Only records a stage gave up on are replayed: records that failed validation are not (a replay
would not change them; fix the source and harvest again, or change the source's schema or SHACL
profile). When nothing is sent the output says why.

Exit status: 0 when the replay ran (including when nothing was left to replay), 1 when it was
refused (unknown job, a job not complete, a newer job) or did not finish, 2 for bad arguments.

` + servicesHelp(),
		Example: `  harvester replay --job 0fbc9aa8-5d1e-4c3b-9f1a-2b7c8d9e0f11
  harvester replay --job 0fbc9aa8-5d1e-4c3b-9f1a-2b7c8d9e0f11 --stage sync --since 2h --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd.Context(), cmd.OutOrStdout()) },
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.jobID, "job", "", "the id of the job whose failed records are replayed (required)")
	fl.StringVar(&f.stage, "stage", "", "replay only the records that failed in this stage: "+
		strings.Join(jobs.ReplayStages(), ", "))
	fl.StringVar(&f.since, "since", "", "replay only messages stored at or after this time: RFC 3339, or a duration ago (e.g. 2h)")
	fl.StringVar(&f.format, "format", "text", "output format: text or json")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Minute, "give up waiting for the replayed records after this long")
	return cmd
}

// params checks the arguments before any service is touched.
func (f *replayFlags) params(now time.Time) (*jobs.ReplayParams, error) {
	p := &jobs.ReplayParams{JobID: f.jobID, Stage: f.stage}
	switch {
	case f.format != "text" && f.format != "json":
		return nil, usageError{fmt.Errorf("--format: %q is not text or json", f.format)}
	case f.jobID == "":
		return nil, usageError{errors.New("--job is required")}
	case f.stage != "" && !slices.Contains(jobs.ReplayStages(), f.stage):
		return nil, usageError{fmt.Errorf("--stage: %q is not one of %s", f.stage, strings.Join(jobs.ReplayStages(), ", "))}
	}
	if f.since != "" {
		since, err := parseSince(f.since, now)
		if err != nil {
			return nil, usageError{err}
		}
		p.Since = since
	}
	return p, nil
}

// parseSince reads --since: an RFC 3339 time, or a positive duration before now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since: %q is neither an RFC 3339 time (2026-11-30T08:00:00Z) nor a duration ago (2h)", s)
}

// replayReport is the --format json output: what the replay did and the job after it.
type replayReport struct {
	jobs.ReplayResult
	Job jobReport `json:"job"`
}

func (f *replayFlags) run(ctx context.Context, out io.Writer) error {
	err := f.replay(ctx, out)
	if err != nil && f.format == "json" && !errors.As(err, new(usageError)) {
		_ = json.NewEncoder(out).Encode(errorReport{Status: "error", Error: err.Error(), JobID: f.jobID})
	}
	return err
}

func (f *replayFlags) replay(ctx context.Context, out io.Writer) error {
	p, err := f.params(time.Now())
	if err != nil {
		return err
	}
	pl, err := f.startPipeline(ctx)
	if err != nil {
		return err
	}
	defer pl.Close()
	st := pl.Store()
	res, err := pl.Jobs().Replay(ctx, p)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("replay: there is no job %q in %s", f.jobID, f.storeName())
	}
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if err := awaitReplayed(wctx, st, p.JobID); err != nil {
		return fmt.Errorf("replayed %d records of job %s, but they did not all settle: %w", res.Replayed, p.JobID, err)
	}
	job, err := st.JobGet(ctx, p.JobID)
	if err != nil {
		return err
	}
	location := job.SourceID
	if src, err := st.SourceGet(ctx, job.SourceID); err == nil {
		location = src.URL
	}
	if f.format == "json" {
		rep := replayReport{ReplayResult: *res}
		var buf strings.Builder
		if err := printReport(ctx, &buf, st, job, location, "json"); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(buf.String()), &rep.Job); err != nil {
			return err
		}
		return json.NewEncoder(out).Encode(rep)
	}
	fmt.Fprintf(out, "Replayed %d of the %d failed messages of job %s (%d skipped: settled already, in flight, or not a record)\n",
		res.Replayed, res.Found, res.JobID, res.Skipped)
	if res.LinkChecks > 0 {
		fmt.Fprintf(out, "Of them, %d link checks went to CHECK again: whoever runs CHECK (worker --stages check, or serve "+
			"with link checks on) checks them\n", res.LinkChecks)
	}
	if res.Message != "" { // nothing sent: why, and what to do instead
		fmt.Fprintln(out, res.Message)
	}
	return printReport(ctx, out, st, job, location, "text")
}

// awaitReplayed waits until no key of the job is re-opened any more: every replayed record has
// settled. It polls the store, which is the system of record for outcomes.
func awaitReplayed(ctx context.Context, st store.Store, jobID string) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		n, err := st.OutcomeReopenedCount(ctx, jobID)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d still in flight: %w", n, ctx.Err())
		case <-tick.C:
		}
	}
}
