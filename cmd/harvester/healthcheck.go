package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/spf13/cobra"
)

// healthcheckCommand probes a running process's /healthz or /readyz, for container health
// checks in images without a shell or curl (the distroless image of the Dockerfile).
func healthcheckCommand() *cobra.Command {
	var (
		addr, path string
		timeout    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Probe a running harvester's /healthz or /readyz; exit 0 when it answers 200",
		Long: `GET http://ADDR/PATH of a running harvester (serve, api, worker or scheduler with --addr) and
exit 0 when it answers 200, 1 otherwise (printing the status and body, or the error). For
container health checks: the image has no shell and no curl.`,
		Example: `  harvester healthcheck                       # /readyz of 127.0.0.1:8080
  harvester healthcheck --path /healthz --addr 127.0.0.1:9090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return healthcheck(cmd.Context(), cmd.OutOrStdout(), addr, path, timeout)
		},
	}
	fl := cmd.Flags()
	(&flagEnv{}).bind(cmd, &addr, "healthcheck-addr") // a string: no value fails to parse
	fl.StringVar(&path, "path", "/readyz", "/readyz (database and NATS reachable) or /healthz (the process serves HTTP)")
	fl.DurationVar(&timeout, "timeout", 10*time.Second, "give up after this long")
	return cmd
}

// healthcheck GETs http://addr+path and returns nil on 200; any other answer, or no answer
// within timeout, is an error naming the status and the body's first 512 bytes.
func healthcheck(ctx context.Context, out io.Writer, addr, path string, timeout time.Duration) error {
	if timeout <= 0 {
		return usageError{fmt.Errorf("--timeout: %v must be positive", timeout)}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	url := "http://" + addr + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return usageError{fmt.Errorf("healthcheck: %w", err)}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: GET %s: %s: %s", url, resp.Status, body)
	}
	fmt.Fprintf(out, "%s: %s\n", url, body)
	return nil
}
