package feeds

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/store"
)

// keyset calls fn with each page of the live catalog that p selects, in dataset id order, from
// p.After on, until the end, fn's stop (false) or error, or ctx's end. The pages are read by a
// goroutine of its own one page ahead of fn, so that reading the store and writing the answer
// overlap (on two cores, nearly twice the speed of one after the other); at most three pages are
// held at once, whatever the catalog's size.
func keyset(ctx context.Context, st Pager, p store.DatasetPageParams, fn func(page []*store.LiveDataset) (bool, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	type result struct {
		page []*store.LiveDataset
		err  error
	}
	pages := make(chan result, 1)
	defer func() {
		cancel()
		for range pages { // the reader has stopped when pages is closed
		}
	}()
	go func() {
		defer close(pages)
		for {
			page, err := st.DatasetPage(ctx, &p)
			if err != nil {
				err = fmt.Errorf("page after %q: %w", p.After, err)
			}
			select {
			case pages <- result{page, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || len(page) == 0 {
				return
			}
			p.After = page[len(page)-1].ID
		}
	}()
	for r := range pages {
		if r.err != nil || len(r.page) == 0 {
			return r.err
		}
		more, err := fn(r.page)
		if err != nil || !more {
			return err
		}
	}
	return ctx.Err()
}
