package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// TestDataDirHeldByAnotherProcess: one process at a time may use an embedded data directory's
// in-process NATS server and bleve index. While a `harvester harvest` (another process) holds
// one, a second harvest, `search` and `replay` on it are refused at once, before the holder
// ends, with a sentence that names the holder's pid and command; the first harvest's datasets
// are all in the index. Beside a running `serve` (another process), `search` and `replay` are
// refused the same way, and told the address serve listens at.
func TestDataDirHeldByAnotherProcess(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	file := corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json")
	// The agency's server answers the first harvest's request only when the test lets it: the
	// first harvest holds the data directory meanwhile.
	release, asked := make(chan struct{}), make(chan struct{}, 1)
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-release
		http.ServeFile(w, r, file)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(let)
	embedded := []string{"--data-dir", dir, "--database-url", "", "--nats-url", "", "--opensearch-url", "",
		"--allow-private-sources"}
	harvestArgs := append([]string{"harvest", "--url", srv.URL + "/data.json", "--schema-type", federal}, embedded...)

	first := exec.Command(bin, append(harvestArgs, "--format", "json")...)
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, os.Stderr
	require.NoError(t, first.Start())
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	t.Cleanup(func() { _ = first.Process.Kill() })
	select {
	case <-asked:
	case err := <-done:
		t.Fatalf("the first harvest ended before it asked for the catalog: %v\n%s", err, firstOut.String())
	}

	holder := fmt.Sprintf("%s is in use by process %d (harvester harvest --url %s/data.json", dir, first.Process.Pid, srv.URL)
	refused := func(args ...string) {
		t.Helper()
		code, _, stderr := runCmd(args...)
		require.Equal(t, exitJobError, code, stderr)
		require.Contains(t, stderr, "harvester: data directory "+holder)
		require.Contains(t, stderr, "one process at a time may use a data directory's in-process NATS server and bleve index")
	}
	refused(harvestArgs...)
	refused(append([]string{"search", "water"}, embedded...)...)
	refused(append([]string{"replay", "--job", "00000000-0000-4000-8000-000000000000"}, embedded...)...)
	select {
	case err := <-done:
		t.Fatalf("the first harvest ended (%v) before the others were refused: they waited for it", err)
	default:
	}

	let()
	require.NoError(t, <-done)
	var rep jobReport
	require.NoError(t, json.Unmarshal(firstOut.Bytes(), &rep))
	require.Equal(t, "complete", rep.Status, rep.JobErrors)
	require.Positive(t, rep.Added)
	code, stdout, stderr := runCmd(append([]string{"search", "--format", "json", "--per-page", "1"}, embedded...)...)
	require.Equal(t, exitOK, code, stderr)
	var res struct{ Total int }
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	require.Equal(t, rep.Added, res.Total, "every dataset the first harvest wrote is in the index")

	addr := freeAddr(t)
	serve := exec.Command(bin, append([]string{"serve", "--addr", addr}, embedded...)...)
	serve.Stderr = os.Stderr
	require.NoError(t, serve.Start())
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		_ = serve.Wait()
	})
	awaitOK(t, "http://"+addr+"/readyz", "serve became ready")
	holder = fmt.Sprintf("%s is in use by process %d (harvester serve --addr %s", dir, serve.Process.Pid, addr)
	refused(append([]string{"search", "water"}, embedded...)...)
	refused(append([]string{"replay", "--job", "00000000-0000-4000-8000-000000000000"}, embedded...)...)
	_, _, stderr = runCmd(append([]string{"search", "water"}, embedded...)...)
	require.Contains(t, stderr, "listening at http://"+addr, "the refusal says where serve answers")
}
