package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/google/pprof/profile"
)

// cpuChunk is how long each of the CPU profiles lasts that a scenario's profile is merged from:
// net/http/pprof's /debug/pprof/profile takes a duration fixed in advance, and a job's is not
// known, so the bench asks for one chunk after another while the job runs.
const cpuChunk = 2 * time.Second

// scenarioProfiler collects a CPU profile of the harvester process over a scenario, from its
// --pprof-addr, in chunks of cpuChunk merged into one (github.com/google/pprof/profile.Merge).
type scenarioProfiler struct {
	base   string // http://pprof-addr
	client *http.Client
	stop   chan struct{}
	done   chan struct{}
	chunks []*profile.Profile
	err    error
}

// profileCPU starts collecting a CPU profile from the profiler at addr (host:port); end stops it.
func profileCPU(addr string) *scenarioProfiler {
	p := &scenarioProfiler{base: "http://" + addr, client: &http.Client{Timeout: cpuChunk + 30*time.Second},
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			select {
			case <-p.stop:
				return
			default:
			}
			prof, err := p.fetch(fmt.Sprintf("/debug/pprof/profile?seconds=%d", int(cpuChunk/time.Second)))
			if err != nil {
				p.err = err
				return
			}
			p.chunks = append(p.chunks, prof)
		}
	}()
	return p
}

func (p *scenarioProfiler) fetch(path string) (*profile.Profile, error) {
	data, err := p.get(path)
	if err != nil {
		return nil, err
	}
	return profile.ParseData(data)
}

func (p *scenarioProfiler) get(path string) ([]byte, error) {
	resp, err := p.client.Get(p.base + path)
	if err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("profile %s: %s: %s", path, resp.Status, data)
	}
	return data, nil
}

// end waits for the running chunk, then writes the merged CPU profile to cpuPath and the
// process's heap profile (in-use at the end, and allocations since the process started, which
// is the scenario's: each runs in a fresh process) to heapPath. Both are pprof's gzipped
// protobuf, for `go tool pprof`.
func (p *scenarioProfiler) end(ctx context.Context, cpuPath, heapPath string) error {
	close(p.stop)
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if p.err != nil {
		return p.err
	}
	if len(p.chunks) == 0 {
		return errors.New("profile: no CPU profile taken")
	}
	merged, err := profile.Merge(p.chunks)
	if err != nil {
		return fmt.Errorf("profile: merge: %w", err)
	}
	if err := writeFile(cpuPath, merged.Write); err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	heap, err := p.get("/debug/pprof/heap")
	if err != nil {
		return err
	}
	return os.WriteFile(heapPath, heap, 0o644)
}

// profilePaths are the files of a scenario's profiles in dir.
func profilePaths(dir, scenario string) (cpu, heap string) {
	return filepath.Join(dir, scenario+".cpu.pprof"), filepath.Join(dir, scenario+".heap.pprof")
}
