package extract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPageGuardResultWindow: the page after a full last page is asked for to check the count,
// but not past the items the API serves at most (ODS v2.1 answers an offset of 10,000 with an
// error): a portal of exactly 10,000 datasets is listed.
func TestPageGuardResultWindow(t *testing.T) {
	t.Parallel()
	full := &PortalPage{Total: 10_000, Items: make([]PortalItem, 100)}
	for _, tc := range []struct{ window, want int }{{0, 10_000}, {10_000, -1}, {20_000, 10_000}} {
		g, err := newPageGuard(&Pager{PageSize: 100, ResultWindow: tc.window}, full)
		require.NoError(t, err)
		require.Equal(t, 100, g.pages)
		require.Equal(t, tc.want, g.afterLast(full), "window %d", tc.window)
	}
}
