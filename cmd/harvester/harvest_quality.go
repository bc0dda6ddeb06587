package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/stages/check"
)

// linkFlags are the link checker's flags (CHECK, docs/quality.md): the limits every command
// that runs it shares, serve's and worker's --link-checks and --link-recheck, and harvest's
// --check-links.
type linkFlags struct {
	checkLinks      bool // harvest: run CHECK and wait for the job's quality event
	on              bool // serve, worker, scheduler: link checks on (--link-checks)
	recheck         time.Duration
	hostConcurrency int
	hostRate        float64
	excludeHosts    string
}

// register adds the checker's limits and, for serve, worker and scheduler (server), the
// pipeline's switches; for harvest, --check-links.
func (l *linkFlags) register(cmd *cobra.Command, server bool, env *flagEnv) {
	if server {
		env.bind(cmd, &l.on, "link-checks")
		env.bind(cmd, &l.recheck, "link-recheck")
	} else {
		cmd.Flags().BoolVar(&l.checkLinks, "check-links", false,
			"check the distribution URLs (accessURL, downloadURL) of the source's live datasets through CHECK, wait until\n"+
				"the job's checks settle and print the source's metadata quality (MQA score, rating, links checked, ok, broken)")
	}
	env.bind(cmd, &l.hostConcurrency, "link-host-concurrency")
	env.bind(cmd, &l.hostRate, "link-host-rate")
	env.bind(cmd, &l.excludeHosts, "link-exclude-hosts")
}

// config is the pipeline's LinkChecks: nil when the flags check no links. recheck 0 is the
// one-shot harvest's (a URL checked before its job started is checked again).
func (l *linkFlags) config(recheck time.Duration) (*pipeline.LinkCheckConfig, error) {
	switch {
	case l.hostConcurrency < 1:
		return nil, usageError{fmt.Errorf("--link-host-concurrency: %d: want at least 1", l.hostConcurrency)}
	case !(l.hostRate > 0):
		return nil, usageError{fmt.Errorf("--link-host-rate: %v: want more than 0 a second", l.hostRate)}
	case recheck < 0:
		return nil, usageError{fmt.Errorf("--link-recheck: %v: want a positive duration", recheck)}
	}
	var hosts []string
	for h := range strings.SplitSeq(l.excludeHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	c := check.Config{HostConcurrency: l.hostConcurrency, HostRate: l.hostRate, ExcludeHosts: hosts}
	if _, err := check.New(c); err != nil {
		return nil, usageError{fmt.Errorf("--link-exclude-hosts: %w", err)}
	}
	return &pipeline.LinkCheckConfig{Checker: c, Recheck: recheck}, nil
}

// qualityReport is the report's quality section (--check-links): the source's quality event
// (harvest.QualityReport) once the job's link checks settled.
type qualityReport struct {
	Score    float64                `json:"score"`  // the mean of the datasets' scores, 0–405
	Max      int                    `json:"max"`    // 405
	Rating   string                 `json:"rating"` // Excellent, Good, Sufficient or Bad
	Datasets int                    `json:"datasets"`
	Links    harvest.QualityLinks   `json:"links"`
	Costly   []costlyPoint          `json:"costliest"` // the indicators that cost the most points, up to 5
	Event    *harvest.QualityReport `json:"-"`
}

// costlyPoint is an indicator and the points it costs the average dataset.
type costlyPoint = harvest.QualityIndicator

// errNoQuality is a --check-links run whose quality event did not come.
var errNoQuality = errors.New("the job's link checks did not settle")

// awaitQuality waits, until ctx ends, for the quality event of job jobID.
func awaitQuality(ctx context.Context, events <-chan *harvest.QualityReport, jobID string) (*qualityReport, error) {
	for {
		select {
		case q := <-events:
			if q.JobID == jobID {
				return &qualityReport{Score: q.Score, Max: q.Max, Rating: q.Rating, Datasets: q.Datasets, Links: q.Links,
					Costly: append([]costlyPoint{}, q.Costliest...), Event: q}, nil
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", errNoQuality, ctx.Err())
		}
	}
}

// print writes the quality section of the text report.
func (q *qualityReport) print(out io.Writer) {
	if q == nil {
		return
	}
	fmt.Fprintf(out, "  quality: %.1f of %d points (%s), mean of %s\n", q.Score, q.Max, q.Rating, plural(q.Datasets, "live dataset"))
	fmt.Fprintf(out, "  links: %s, %d checked: %d ok, %d broken; %d not checked\n",
		plural(q.Links.URLs, "distinct URL"), q.Links.Checked, q.Links.OK, q.Links.Broken, q.Links.Unchecked)
	for _, c := range q.Costly {
		fmt.Fprintf(out, "    %s costs %.1f of %d points on average\n", c.Metric, c.Lost, c.Max)
	}
}
