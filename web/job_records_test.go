package web

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

var h1Re = regexp.MustCompile(`<h1 id="page-title">([^<]*)</h1>`)

// heading is the page's h1, unescaped as far as the titles here need.
func heading(t *testing.T, page string) string {
	t.Helper()
	m := h1Re.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	return strings.NewReplacer("&amp;", "&", "&#39;", "'", "&#34;", `"`).Replace(m[1])
}

// Issue 36 §4: a job page is titled by its source and start time, a record page by its
// identifier, source and time; neither by a UUID.
func TestJobAndRecordTitles(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		b := newSite(t, st).browser(t)
		uuidRe := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-`)
		_, page := b.get("/harvest_jobs/" + f.job1.ID)
		h := heading(t, page)
		require.Regexp(t, `^Agency catalog — harvest job, \d{4}-\d\d-\d\d \d\d:\d\d UTC$`, h)
		require.Equal(t, "Agency catalog — harvest job, "+f.job1.CreatedAt.UTC().Format("2006-01-02 15:04")+" UTC", h)
		require.NotRegexp(t, uuidRe, h)
		_, page = b.get("/harvest_records/" + f.updated.ID)
		h = heading(t, page)
		require.Equal(t, "a — Agency catalog, "+f.updated.CreatedAt.UTC().Format("2006-01-02 15:04")+" UTC", h)
		require.Contains(t, page, `id="record-source">Agency catalog</a>`)
		_, page = b.get("/harvest_jobs/" + f.job1.ID + "/cancel")
		require.NotRegexp(t, uuidRe, heading(t, page))
	})
}

// Issue 36 §4: a job that completed with errored records shows one badge, "complete with
// errors", not "complete" beside it; a running job shows its status.
func TestJobPageOneBadge(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		b := newSite(t, st).browser(t)
		_, page := b.get("/harvest_jobs/" + f.job1.ID)
		require.Contains(t, page, `<span id="job-status" data-status="complete" class="health health-errors">complete with errors</span>`)
		require.NotContains(t, page, `>complete</span>`)
		require.Equal(t, 1, strings.Count(page, `class="health `), "one badge")
		_, page = b.get("/harvest_jobs/" + f.job2.ID)
		require.Contains(t, page, `<span id="job-status" data-status="complete" class="health health-ok">complete</span>`)
		running, err := st.JobInsert(t.Context(), &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		_, page = b.get("/harvest_jobs/" + running.ID)
		require.Contains(t, page, `<span id="job-status" data-status="in_progress" class="status-in_progress">in_progress</span>`)
		require.NotContains(t, page, `class="health `)
	})
}

// Issue 36 §4: a job's records are listed from its page, by action: the added, the updated
// (each linking to its record's diff) and the deleted; paged, the pager keeping the action;
// an unknown action is a 400.
func TestJobRecordsList(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		f := seed(t, st)
		b := newSite(t, st).browser(t)
		_, page := b.get("/harvest_jobs/" + f.job2.ID)
		require.Contains(t, page, `<a href="/harvest_jobs/`+f.job2.ID+`/records?action=update" id="records-update">`)

		code, page := b.get("/harvest_jobs/" + f.job2.ID + "/records?action=update")
		require.Equal(t, http.StatusOK, code, page)
		require.Contains(t, page, `<p id="records-total">1 record with action update.</p>`)
		require.Contains(t, page, `<tr class="record" data-action="update" data-status="success"><td><a href="/harvest_records/`+
			f.updated.ID+`" class="record-link">a</a>`)
		require.Contains(t, page, `<a href="/harvest_records/`+f.updated.ID+`#diff-heading" class="record-diff">what changed</a>`)
		require.Contains(t, page, `id="records-filter-update" aria-current="page"`)
		_, page = b.get("/harvest_jobs/" + f.job2.ID + "/records?action=create")
		require.Contains(t, page, `id="records-none"`)

		_, page = b.get("/harvest_jobs/" + f.job1.ID + "/records")
		require.Contains(t, page, `<p id="records-total">2 records.</p>`)
		require.Contains(t, page, `data-action="create" data-status="success"`)
		require.Contains(t, page, `data-action="create" data-status="error_validation"`, "the errored record b")
		require.NotContains(t, page, `class="record-diff"`, "a create has no diff")

		// A clear-like job of deletes, 51 of them: two pages.
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		var ps []*store.RecordInsertParams
		for i := range 51 {
			ps = append(ps, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: f.src.ID,
				Identifier: fmt.Sprintf("d%02d", i), Action: harvest.ActionDelete})
		}
		require.NoError(t, st.RecordInsertBatch(ctx, ps))
		_, page = b.get("/harvest_jobs/" + job.ID + "/records?action=delete")
		require.Contains(t, page, `<p id="records-total">51 records with action delete.</p>`)
		require.Equal(t, 50, strings.Count(page, `<tr class="record" data-action="delete"`))
		require.Contains(t, page, `href="/harvest_jobs/`+job.ID+`/records?action=delete&amp;page=2" id="pager-next"`)
		_, page = b.get("/harvest_jobs/" + job.ID + "/records?action=delete&page=2")
		require.Equal(t, 1, strings.Count(page, `<tr class="record" data-action="delete"`))
		require.Contains(t, page, `>d50</a>`)
		require.Contains(t, page, `href="/harvest_jobs/`+job.ID+`/records?action=delete&amp;page=1" id="pager-prev"`)

		code, page = b.get("/harvest_jobs/" + job.ID + "/records?action=unchanged")
		require.Equal(t, http.StatusBadRequest, code)
		require.Contains(t, page, `action &#34;unchanged&#34; is not one of create, update, delete`)
		code, _ = b.get("/harvest_jobs/" + uuid.NewString() + "/records")
		require.Equal(t, http.StatusNotFound, code)
	})
}

// Issue 36 §4: the job page lists warnings by message, the most frequent first, each with its
// count and its first identifiers, and links a message seen more often than it shows to the
// page of all its rows.
func TestJobPageWarningsByMessage(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		f := seed(t, st)
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: f.src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		warn := func(msg string) harvest.RecordError {
			return harvest.RecordError{Type: harvest.TypeValidationWarning, Message: msg, Severity: harvest.SeverityWarning}
		}
		for i := range 7 {
			errs := []harvest.RecordError{warn("$.keyword: empty")}
			if i == 3 {
				errs = append(errs, warn("$.issued: later than modified"))
			}
			key := fmt.Sprintf("r%d", i)
			_, _, err := st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: key, Identifier: key,
				Outcome: harvest.OutcomeAdded, Errors: errs})
			require.NoError(t, err)
		}
		b := newSite(t, st).browser(t)
		_, page := b.get("/harvest_jobs/" + job.ID)
		_, warnings, ok := strings.Cut(page, "<h2>Warnings</h2>")
		require.True(t, ok)
		require.Contains(t, warnings, `<p id="record-warnings-total">8 record warnings, 2 different messages.</p>`)
		first, second, ok := strings.Cut(warnings, `id="warning-message-2"`)
		require.True(t, ok, "two groups: %s", warnings)
		require.Contains(t, first, `data-count="7"`)
		require.Contains(t, first, `<span class="group-message">$.keyword: empty</span> (ValidationWarning): <span class="group-count">7</span>`)
		require.Equal(t, 5, strings.Count(first, `<span class="group-identifier">`), "a few identifiers")
		require.Contains(t, first, `<span class="group-identifier">r0</span>`)
		require.NotContains(t, first, `>r5<`)
		all := `/harvest_jobs/` + job.ID + `/record_errors?message=%24.keyword%3A&#43;empty&amp;severity=warning`
		require.Contains(t, first, `<a href="`+all+`" class="group-all">All 7</a>`)
		require.Contains(t, second, `data-count="1"`)
		require.Contains(t, second, `<span class="group-identifier">r3</span>`)
		require.NotContains(t, second, `class="group-all"`, "every row shown")

		code, list := b.get(strings.NewReplacer("&amp;", "&", "&#43;", "+").Replace(all))
		require.Equal(t, http.StatusOK, code, list)
		require.Contains(t, list, `<p id="messages-total">7 warnings with the message <q id="messages-message">$.keyword: empty</q>.</p>`)
		require.Equal(t, 7, strings.Count(list, `<tr class="message-row">`))
		require.NotContains(t, list, "later than modified")
		code, _ = b.get("/harvest_jobs/" + job.ID + "/record_errors?severity=fatal")
		require.Equal(t, http.StatusBadRequest, code)
	})
}
