package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// Issue 36 §4: the dashboard's timeline zooms to the last hour (?window=1h): its grid is of
// 10 minutes, a job of the last hour spans more of it than on the day's scale, and a job
// that ended before the hour is left out; the zoom links keep the organization filter and an
// unknown window is a 400.
func TestDashboardTimelineLastHour(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st) // two jobs, created and finished just now
		b := newSite(t, st).browser(t)
		_, day := b.get("/dashboard?organization_id=" + f.org.ID)
		require.Contains(t, day, `<h2 id="timeline-title">Jobs of the last 24 hours</h2>`)
		require.Contains(t, day, `id="timeline-window-24h" aria-current="page"`)
		require.Contains(t, day, `<a href="/dashboard?organization_id=`+f.org.ID+`&amp;window=1h" id="timeline-window-1h">Last hour</a>`)

		code, hour := b.get("/dashboard?organization_id=" + f.org.ID + "&window=1h")
		require.Equal(t, http.StatusOK, code, hour)
		require.Contains(t, hour, `<h2 id="timeline-title">Jobs of the last hour</h2>`)
		require.Contains(t, hour, `id="timeline-window-1h" aria-current="page"`)
		require.Contains(t, hour, `<input type="hidden" name="window" value="1h">`, "the filter keeps the zoom")
		require.Contains(t, hour, `data-job-id="`+f.job1.ID+`"`)
		ticks := strings.Count(hour, `<line class="grid"`)
		require.GreaterOrEqual(t, ticks, 5, "a line every 10 minutes")
		require.LessOrEqual(t, ticks, 6)
		require.LessOrEqual(t, strings.Count(day, `<line class="grid"`), 8, "every 3 hours on the day's scale")

		// A job that ran two hours ago is on the day's timeline, not the hour's.
		tl := jobTimeline([]*store.HarvestJob{{ID: "old", SourceID: f.src.ID, CreatedAt: time.Now().Add(-2 * time.Hour),
			FinishedAt: ptr(time.Now().Add(-110 * time.Minute))}}, map[string]string{f.src.ID: "S"}, time.Now(), timelineZooms[1])
		require.Empty(t, tl.Rows)
		tl = jobTimeline([]*store.HarvestJob{{ID: "old", SourceID: f.src.ID, CreatedAt: time.Now().Add(-2 * time.Hour),
			FinishedAt: ptr(time.Now().Add(-110 * time.Minute))}}, map[string]string{f.src.ID: "S"}, time.Now(), timelineZooms[0])
		require.Len(t, tl.Rows, 1)
		// A 6-minute job is a tenth of the hour's plot.
		now := time.Now()
		tl = jobTimeline([]*store.HarvestJob{{ID: "j", SourceID: f.src.ID, CreatedAt: now.Add(-12 * time.Minute),
			FinishedAt: ptr(now.Add(-6 * time.Minute))}}, map[string]string{f.src.ID: "S"}, now, timelineZooms[1])
		require.InDelta(t, timelinePlotW/10, tl.Rows[0].Bars[0].W, 2)

		code, _ = b.get("/dashboard?window=7d")
		require.Equal(t, http.StatusBadRequest, code)
	})
}

func ptr[T any](v T) *T { return &v }
