package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// The first_harvest_check scenario: a first harvest with CHECK on (the harvester's defaults:
// --link-checks, at most 2 checks at a time and 2 a second per host). Its catalog is the
// synthetic catalog's records o.records to 2·o.records-1 (a source of its own, no cross-source
// duplicate of the bench source), each distribution's accessURL and downloadURL moved onto one
// of linkHostCount loopback hosts (a port each) that answer every request 200 at once. It
// reports the job's records/s against first_harvest's (OfFirstHarvest) and, apart, how long
// until the job's link checks settled (its quality report is kept: ChecksSettledS) and the URLs
// checked per second until then.

// checkScenario names the scenario.
const checkScenario = "first_harvest_check"

// linkHostCount is how many loopback hosts the scenario's distribution URLs are spread over.
const linkHostCount = 250

// linkServers are the scenario's link hosts: one handler on linkHostCount listeners.
type linkServers struct {
	hosts    []string // http://127.0.0.1:port each
	requests atomic.Int64
	stop     func()
}

// serveLinks starts the link hosts.
func serveLinks() (*linkServers, error) {
	s := &linkServers{}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.requests.Add(1)
		w.Header().Set("Content-Type", "text/csv")
	})}
	var lns []net.Listener
	s.stop = func() {
		_ = srv.Close()
		for _, ln := range lns {
			_ = ln.Close()
		}
	}
	for range linkHostCount {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.stop()
			return nil, err
		}
		lns = append(lns, ln)
		s.hosts = append(s.hosts, "http://"+ln.Addr().String())
		go func() { _ = srv.Serve(ln) }()
	}
	return s, nil
}

// loopbackLinks is the scenario catalog's relink: record i's landingPage its own (as
// uniqueLinks), and the accessURL and downloadURL of its distribution j on host (i+j) mod the
// hosts, with a path of their own: every URL distinct, the hosts evenly loaded.
func loopbackLinks(hosts []string) func(rec map[string]json.RawMessage, i int) {
	return func(rec map[string]json.RawMessage, i int) {
		uniqueLinks(rec, i) // the landingPage
		var dists []map[string]json.RawMessage
		if json.Unmarshal(rec["distribution"], &dists) != nil {
			return
		}
		for j, d := range dists {
			host := hosts[(i+j)%len(hosts)]
			for _, k := range []string{"accessURL", "downloadURL"} {
				if _, ok := d[k]; ok {
					d[k] = mustJSON(fmt.Sprintf("%s/d/%d/%d/%s", host, i, j, k))
				}
			}
		}
		if b, err := json.Marshal(dists); err == nil {
			rec["distribution"] = b
		}
	}
}

// awaitChecks waits until the job's quality report is kept (its link checks settled) and
// returns when, or ctx's error.
func (h *harvester) awaitChecks(ctx context.Context, jobID string) (time.Time, error) {
	for {
		var q struct {
			JobID string `json:"jobId"`
		}
		err := h.call(ctx, http.MethodGet, "/api/v1/harvest_jobs/"+jobID+"/quality", nil, &q)
		if err == nil && q.JobID == jobID {
			return time.Now(), nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("job %s: link checks: %w", jobID, ctx.Err())
		case <-h.exited:
			return time.Time{}, fmt.Errorf("harvester serve exited during job %s's link checks: %s", jobID, h.stderr.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
