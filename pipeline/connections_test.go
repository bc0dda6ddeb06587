package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/scheduler"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// startNATS runs an in-process nats-server with JetStream whose connection count the test reads.
func startNATS(t *testing.T) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go s.Start()
	require.True(t, s.ReadyForConnections(time.Minute), "nats-server did not start")
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// serveConfig is the pipeline of `harvester serve`: every stage, the scheduler and the API.
func serveConfig(t *testing.T, natsURL string) pipeline.Config {
	return pipeline.Config{Store: dbtest.Store(t), NATSURL: natsURL, Logger: slog.New(slog.DiscardHandler),
		SearchIndex: "none", Stages: pipeline.StageNames(), Mail: &notify.Config{},
		Scheduler: &scheduler.Config{Interval: time.Hour}, API: &api.Config{}, Addr: "127.0.0.1:0"}
}

// TestOneNATSConnectionPerProcess: the stages, the scheduler, the API, replay and the
// readiness check of one process share one NATS connection.
func TestOneNATSConnectionPerProcess(t *testing.T) {
	t.Parallel()
	srv := startNATS(t)
	p, err := pipeline.New(context.Background(), serveConfig(t, srv.ClientURL()))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.NoError(t, p.Start(context.Background()))
	status, body := get(t, "http://"+p.Addr().String()+"/readyz")
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, 1, srv.NumClients(), "NATS connections of the process")

	p.Close()
	waitFor(t, "the connection to close", func() bool { return srv.NumClients() == 0 })
}

// downDatabase is a store whose readiness query fails, as a database that is down would.
type downDatabase struct{ store.Store }

func (downDatabase) OrganizationList(context.Context, *store.PageParams) ([]*store.Organization, int, error) {
	return nil, 0, errors.New("database is down")
}

// TestOneHealthHandler: a process without the API (a worker) answers /healthz and /readyz
// with the API's handler, in the same JSON, ready or not.
func TestOneHealthHandler(t *testing.T) {
	t.Parallel()
	srv := startNATS(t)
	type answer struct {
		healthz, readyz, notReady string
		notReadyStatus            int
	}
	answers := map[bool]answer{}
	st := dbtest.Store(t) // one deployment: its processes share the database (and so the streams' stamp)
	for _, withAPI := range []bool{true, false} {
		var a answer
		for _, down := range []bool{false, true} {
			cfg := serveConfig(t, srv.ClientURL())
			cfg.Store, cfg.Scheduler = st, nil
			if down {
				cfg.Store = downDatabase{cfg.Store}
			}
			if !withAPI {
				cfg.API, cfg.Stages = nil, []string{pipeline.StageValidate}
			}
			p, err := pipeline.New(context.Background(), cfg)
			require.NoError(t, err)
			require.NoError(t, p.Start(context.Background()))
			base := "http://" + p.Addr().String()
			if down {
				a.notReadyStatus, a.notReady = get(t, base+"/readyz")
			} else {
				_, a.healthz = get(t, base+"/healthz")
				_, a.readyz = get(t, base+"/readyz")
				status, _ := get(t, base+"/api/v1/organizations")
				require.Equal(t, withAPI, status == http.StatusOK, "the API is served only with it: %d", status)
			}
			p.Close()
		}
		answers[withAPI] = a
	}
	require.Equal(t, answers[true], answers[false], "the worker answers as the API")
	var ready, notReady map[string]any
	require.NoError(t, json.Unmarshal([]byte(answers[false].readyz), &ready))
	require.Equal(t, map[string]any{"status": "ready"}, ready)
	require.Equal(t, http.StatusServiceUnavailable, answers[false].notReadyStatus)
	require.NoError(t, json.Unmarshal([]byte(answers[false].notReady), &notReady))
	require.Equal(t, "database: database is down", notReady["error"], answers[false].notReady)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
