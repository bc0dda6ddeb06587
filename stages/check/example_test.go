package check_test

import (
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/stages/check"
)

// Fold keeps a URL's history in two fields: when it was last OK and how many checks failed since.
func ExampleFold() {
	day := func(d int) time.Time { return time.Date(2026, 12, d, 0, 0, 0, 0, time.UTC) }
	var s check.Stored
	for _, r := range []check.Result{
		{URL: "https://example.org/a.csv", Status: 200, OK: true, CheckedAt: day(1)},
		{URL: "https://example.org/a.csv", Status: 404, CheckedAt: day(8)},
		{URL: "https://example.org/a.csv", Error: check.Timeout, CheckedAt: day(15)},
	} {
		s = check.Fold(s, r)
		fmt.Printf("%s status=%d error=%q ok=%v last_ok=%s failures=%d\n", r.CheckedAt.Format(time.DateOnly),
			s.Status, s.Error, s.OK, s.LastOKAt.Format(time.DateOnly), s.ConsecutiveFailures)
	}
	fmt.Println(s.LinkResult().Class)
	// Output:
	// 2026-12-01 status=200 error="" ok=true last_ok=2026-12-01 failures=0
	// 2026-12-08 status=404 error="" ok=false last_ok=2026-12-01 failures=1
	// 2026-12-15 status=0 error="timeout" ok=false last_ok=2026-12-01 failures=2
	// broken
}
