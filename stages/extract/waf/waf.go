package waf

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/stages/extract"
)

// WAFFile is one metadata file of a WAF listing.
type WAFFile struct {
	URL string // absolute URL: the record identifier
	// Modified is the date the listing shows for the file, in UTC: the start of the span that
	// date stands for (a listing showing 10:05 means some time in [10:05:00, 10:06:00)). Zero
	// when the listing shows none.
	Modified time.Time
	// Precision is the length of that span: a minute for "2006-01-02 15:04", a second when the
	// listing shows seconds, a day for a date alone, plus the repeated hour when the time falls
	// in a clock change that repeats it (the fall-back hour of daylight saving time). The file
	// changed last at or after Modified and before Modified+Precision. Zero when Modified is.
	Precision time.Duration
}

// WAFConfig bounds a crawl. Zero (or negative) fields take defaults: MaxDepth 10 folders below
// the root, MaxFolders 10000, MaxFiles 1,000,000, Location UTC.
type WAFConfig struct {
	// MaxDepth is how many folder levels below the root are listed; deeper folders are not
	// fetched (they are out of the crawl's scope, which is not an error).
	MaxDepth int
	// MaxFolders caps the listing pages fetched, the root included. A crawl that would need
	// more fails with ErrWAFLimit.
	MaxFolders int
	// MaxFiles caps the distinct files reported. A crawl that finds more fails with
	// ErrWAFLimit.
	MaxFiles int
	// Location is the time zone of listing dates that name none (most listings show the
	// server's local time without saying so): the harvest source's WAF time zone. A zone the
	// listing names beside a date ("+0100", "GMT") wins over it. Default UTC.
	Location *time.Location
}

// WithDefaults returns c with zero fields set to their defaults.
func (c WAFConfig) WithDefaults() WAFConfig {
	if c.MaxDepth <= 0 {
		c.MaxDepth = 10
	}
	if c.MaxFolders <= 0 {
		c.MaxFolders = 10000
	}
	if c.MaxFiles <= 0 {
		c.MaxFiles = 1_000_000
	}
	if c.Location == nil {
		c.Location = time.UTC
	}
	return c
}

// ErrWAFLimit is the cause of a crawl that hit WAFConfig.MaxFolders or MaxFiles. The crawl
// fails rather than returning a truncated listing, which would look like deleted files.
var ErrWAFLimit = errors.New("WAF crawl limit reached")

// errNotHTML is a listing page with no HTML markup at all (an empty body, plain text).
var errNotHTML = errors.New("not an HTML directory listing: no markup")

// CrawlWAF walks the listing at root and its sub-folders breadth-first (a visited set, the
// depth cap, same scheme+host only, never above root), calling fn with each file once. A
// listing that cannot be fetched or parsed is an error for the whole crawl (a failed listing
// must never look like an empty one: nothing may be deleted after it). fn's error stops the
// crawl and is returned.
//
// The root is a folder: a root path with no trailing slash whose last segment has no "." (e.g.
// https://host/waf) is read as that folder (https://host/waf/), so that relative links resolve
// as a browser would after the server's redirect. Only files and folders below the root's
// folder are taken; a folder's depth is the number of path segments below it.
func CrawlWAF(ctx context.Context, fc fetch.Config, cfg WAFConfig, root string, fn func(WAFFile) error) error {
	fc = fc.WithDefaults()
	cfg = cfg.WithDefaults()
	rootURL, err := parsePageURL(root)
	if err != nil {
		return err
	}
	rootURL.Fragment, rootURL.RawFragment = "", ""
	if !strings.HasSuffix(rootURL.Path, "/") && !strings.Contains(rootURL.Path[strings.LastIndex(rootURL.Path, "/")+1:], ".") {
		rootURL.Path += "/"
		if rootURL.RawPath != "" {
			rootURL.RawPath += "/"
		}
	}
	rootDir := dirOf(rootURL.Path)
	under := func(u *url.URL) bool {
		return u.Scheme == rootURL.Scheme && extract.SameHost(u, rootURL) && strings.HasPrefix(u.Path, rootDir)
	}

	start := rootURL.String()
	queue := []string{start}
	visited := map[string]bool{start: true}
	seen := make(map[string]struct{})
	for fetched := 0; len(queue) > 0; fetched++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		cur := queue[0]
		queue = queue[1:]
		if fetched >= cfg.MaxFolders {
			return fmt.Errorf("WAF %s: %w: more than %d folders (next: %s)", start, ErrWAFLimit, cfg.MaxFolders, cur)
		}
		files, subs, err := fetchWAFListing(ctx, fc, cur, cfg.Location)
		if err != nil {
			return err
		}
		for _, f := range files {
			u, err := url.Parse(f.URL)
			if err != nil || !under(u) {
				continue
			}
			if _, dup := seen[f.URL]; dup {
				continue
			}
			if len(seen) >= cfg.MaxFiles {
				return fmt.Errorf("WAF %s: %w: more than %d files (next: %s)", start, ErrWAFLimit, cfg.MaxFiles, f.URL)
			}
			seen[f.URL] = struct{}{}
			if err := fn(f); err != nil {
				return err
			}
		}
		for _, s := range subs {
			u, err := url.Parse(s)
			if err != nil || !under(u) || visited[s] {
				continue
			}
			if strings.Count(u.Path[len(rootDir):], "/") > cfg.MaxDepth {
				continue // out of scope, not a failure
			}
			visited[s] = true
			queue = append(queue, s)
		}
	}
	return nil
}

// fetchWAFListing downloads and parses one listing page. The error names the page: a
// *fetch.Error (URL and HTTP status) when it could not be downloaded.
func fetchWAFListing(ctx context.Context, fc fetch.Config, pageURL string, loc *time.Location) ([]WAFFile, []string, error) {
	f, err := fetch.Get(ctx, fc, pageURL)
	if err != nil {
		return nil, nil, fmt.Errorf("WAF listing: %w", err)
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	files, folders, err := parseWAFListing(pageURL, f, loc)
	if err != nil {
		return nil, nil, fmt.Errorf("WAF listing %s: %w", pageURL, err)
	}
	return files, folders, nil
}

// parsePageURL parses an absolute http(s) URL.
func parsePageURL(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("WAF URL %q: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("WAF URL %q: not an absolute http(s) URL", s)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	u.Host = extract.CanonicalHost(u)
	return u, nil
}

// dirOf is a URL path up to and including its last "/".
func dirOf(p string) string {
	return p[:strings.LastIndex(p, "/")+1]
}
