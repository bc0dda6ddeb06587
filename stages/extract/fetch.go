package extract

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// FetchConfig configures the fetch client. Zero fields take the documented defaults.
type FetchConfig struct {
	// Timeout bounds one whole GET, body included. Default 10 minutes.
	Timeout time.Duration
	// MaxBytes caps a downloaded document, in bytes. Default 1 GiB.
	MaxBytes int64
	// Attempts is how many times a GET is tried on a network error, 429 or 5xx. Default 3.
	Attempts int
	// Backoff is the wait before the second attempt; it doubles after each try. Default 500 ms.
	Backoff time.Duration
	// UserAgent is sent with every request. Default "Harvester/0.1".
	UserAgent string
	// Client is the HTTP client to use. Default: a new http.Client with Timeout.
	Client *http.Client
}

// WithDefaults returns c with zero fields set to their defaults.
func (c FetchConfig) WithDefaults() FetchConfig {
	c.Timeout = cmp.Or(c.Timeout, 10*time.Minute)
	c.MaxBytes = cmp.Or(c.MaxBytes, 1<<30)
	c.Attempts = cmp.Or(c.Attempts, 3)
	c.Backoff = cmp.Or(c.Backoff, 500*time.Millisecond)
	c.UserAgent = cmp.Or(c.UserAgent, "Harvester/0.1 (open-data metadata harvester)")
	if c.Client == nil {
		c.Client = &http.Client{Timeout: c.Timeout}
	}
	return c
}

// FetchError is a source that could not be downloaded: the URL, the HTTP status when the
// server answered (0 otherwise) and the cause.
type FetchError struct {
	URL        string
	StatusCode int
	Err        error
}

func (e *FetchError) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("GET %s: HTTP %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	}
	return fmt.Sprintf("GET %s: %v", e.URL, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

// errTooLarge is the cause of a FetchError for a body over MaxBytes.
var errTooLarge = errors.New("document larger than the size cap")

// Fetch downloads url into a temporary file and returns it positioned at its start; the caller
// closes and removes it. Network errors, 429 and 5xx are retried with exponential backoff; any
// other non-2xx status fails at once. Every failure is a *FetchError.
func Fetch(ctx context.Context, c FetchConfig, url string) (*os.File, error) {
	wait := c.Backoff
	var err error
	for attempt := 1; ; attempt++ {
		var f *os.File
		var retry bool
		f, retry, err = fetchOnce(ctx, c, url)
		if err == nil {
			return f, nil
		}
		if !retry || attempt >= c.Attempts {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, &FetchError{URL: url, Err: ctx.Err()}
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func fetchOnce(ctx context.Context, c FetchConfig, url string) (f *os.File, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, false, &FetchError{URL: url, Err: err}
	}
	req.Header.Set("User-Agent", c.UserAgent)
	req.Header.Set("Accept", "application/json, */*;q=0.5")
	resp, err := c.Client.Do(req)
	if err != nil {
		return nil, ctx.Err() == nil, &FetchError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		retry = resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return nil, retry, &FetchError{URL: url, StatusCode: resp.StatusCode}
	}
	f, err = os.CreateTemp("", "harvester-fetch-*")
	if err != nil {
		return nil, false, fmt.Errorf("fetch %s: %w", url, err)
	}
	n, err := io.Copy(f, io.LimitReader(resp.Body, c.MaxBytes+1))
	if err == nil && n > c.MaxBytes {
		err = fmt.Errorf("%w of %d bytes", errTooLarge, c.MaxBytes)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, !errors.Is(err, errTooLarge), &FetchError{URL: url, Err: err}
	}
	return f, false, nil
}
