package api

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/harvester-dev/harvester/feeds/ckan"
	"github.com/harvester-dev/harvester/store"
)

// CKAN pages by offset (start, offset); the store pages by keyset (store.DatasetPage, in id
// order). An offset is turned into a keyset by ckanCursors: where a page served before ended,
// for the same selection of the same catalog (its DatasetPageStats: count and latest
// change), so that a client paging through in order (a harvester, ckanapi) costs one store
// page per page. An offset no page ended at is reached by reading the pages before it, at
// most ckanMaxWalk datasets; a deeper one is CKAN's 409 "Search Error" naming the limit.
const (
	ckanMaxWalk       = 100_000
	ckanCursorEntries = 4096
)

// ckanCursors maps (selection, catalog state, offset) to the id of the dataset before that
// offset. The zero value is ready; it holds at most ckanCursorEntries (then starts afresh).
type ckanCursors struct {
	mu sync.Mutex
	m  map[string]string
	// maxWalk is how far an offset may be walked to; 0 is ckanMaxWalk (tests lower it).
	maxWalk int
	// pageSize is package_list's store page; 0 is store.MaxDatasetPage (tests lower it).
	pageSize int
}

func cursorKey(sel store.DatasetPageParams, st *store.DatasetPageStats, offset int) string {
	return fmt.Sprintf("%s|%s|%d|%s|%d", sel.OrganizationID, sel.ModifiedSince.UTC().Format(time.RFC3339Nano), st.Count,
		st.LastModified.UTC().Format(time.RFC3339Nano), offset)
}

func (c *ckanCursors) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.m[key]
	return id, ok
}

func (c *ckanCursors) put(key, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= ckanCursorEntries {
		c.m = map[string]string{}
	}
	c.m[key] = id
}

// ckanPage returns up to limit live datasets of the selection sel (its OrganizationID and
// ModifiedSince; zero for all) from offset on, in id order; st is the selection's stats.
// None when offset is at or past the end.
func (s *server) ckanPage(ctx context.Context, sel store.DatasetPageParams, st *store.DatasetPageStats, offset, limit int) ([]*store.LiveDataset, error) {
	if offset >= st.Count || limit <= 0 {
		return nil, nil
	}
	after, err := s.ckanSkip(ctx, sel, st, offset)
	if err != nil {
		return nil, err
	}
	p := sel
	p.After, p.Limit = after, min(limit, store.MaxDatasetPage)
	page, err := s.store.DatasetPage(ctx, &p)
	if err != nil {
		return nil, fmt.Errorf("page datasets: %w", err)
	}
	if len(page) > 0 {
		s.ckanCursors.put(cursorKey(sel, st, offset+len(page)), page[len(page)-1].ID)
	}
	return page, nil
}

// ckanSkip returns the keyset (the id of the dataset before offset) of offset in sel.
func (s *server) ckanSkip(ctx context.Context, sel store.DatasetPageParams, st *store.DatasetPageStats, offset int) (string, error) {
	if offset == 0 {
		return "", nil
	}
	if id, ok := s.ckanCursors.get(cursorKey(sel, st, offset)); ok {
		return id, nil
	}
	if walk := cmp.Or(s.ckanCursors.maxWalk, ckanMaxWalk); offset > walk {
		return "", ckan.SearchError(fmt.Sprintf("start/offset %d is deeper than %d and does not continue a page served "+
			"before: page through in order (start = the previous start + rows), or narrow the query", offset, walk))
	}
	after := ""
	for skipped := 0; skipped < offset; {
		p := sel
		p.After, p.Limit = after, min(store.MaxDatasetPage, offset-skipped)
		page, err := s.store.DatasetPage(ctx, &p)
		if err != nil {
			return "", fmt.Errorf("page datasets: %w", err)
		}
		if len(page) == 0 {
			break
		}
		after, skipped = page[len(page)-1].ID, skipped+len(page)
		s.ckanCursors.put(cursorKey(sel, st, skipped), after)
	}
	return after, nil
}

// ckanPackageList answers package_list: the names (slugs) of the live datasets in id order
// (CKAN orders them by name), all of them unless limit says how many, from offset. The
// answer is streamed, one store page at a time, so a whole catalog's list takes the memory of
// one page; an error after the first byte aborts the response (a client sees a truncated
// body, never a short list that looks whole).
func (s *server) ckanPackageList(w http.ResponseWriter, r *http.Request, p ckanParams, env ckan.Envelope) error {
	bad := map[string][]string{}
	limit, offset := p.int("limit", -1, bad), p.int("offset", 0, bad)
	if len(bad) > 0 {
		return ckan.Validation(bad)
	}
	ctx := r.Context()
	st, err := s.store.DatasetPageStats(ctx, &store.DatasetPageParams{})
	if err != nil {
		return fmt.Errorf("count datasets: %w", err)
	}
	if limit < 0 {
		limit = st.Count
	}
	size := cmp.Or(s.ckanCursors.pageSize, store.MaxDatasetPage)
	first, err := s.ckanPage(ctx, store.DatasetPageParams{}, st, offset, min(limit, size))
	if err != nil {
		return err
	}
	help, _ := json.Marshal(env.Help)
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	fmt.Fprintf(w, `{"help": %s, "success": true, "result": [`, help)
	n := 0
	for page := first; len(page) > 0 && n < limit; {
		for _, d := range page {
			if n == limit {
				break
			}
			name, _ := json.Marshal(d.Slug)
			if n > 0 {
				_, _ = w.Write([]byte(", "))
			}
			_, _ = w.Write(name)
			n++
		}
		if n == limit {
			break
		}
		page, err = s.ckanPage(ctx, store.DatasetPageParams{}, st, offset+n, min(limit-n, size))
		if err != nil {
			s.log.ErrorContext(ctx, "api: package_list failed after its first page", "err", err)
			panic(http.ErrAbortHandler)
		}
	}
	_, _ = w.Write([]byte("]}\n"))
	return nil
}
