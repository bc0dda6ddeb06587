package router_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
)

// TestFailedMaxAge: the failed stream keeps its messages as long as the retention a process
// connects with says (0: for ever), and 30 days when it says nothing; the other streams keep
// theirs.
func TestFailedMaxAge(t *testing.T) {
	t.Parallel()
	url := natstest.URL(t)
	maxAge := func(opts ...router.ConnectOption) (failed, report time.Duration) {
		b, err := router.Connect(t.Context(), url, opts...)
		require.NoError(t, err)
		defer b.Close()
		js, err := jetstream.New(b.Conn())
		require.NoError(t, err)
		for name, age := range map[string]*time.Duration{router.StreamFailed: &failed, router.StreamReport: &report} {
			st, err := js.Stream(t.Context(), name)
			require.NoError(t, err)
			*age = st.CachedInfo().Config.MaxAge
		}
		return failed, report
	}
	month := 30 * 24 * time.Hour
	for _, c := range []struct {
		opts []router.ConnectOption
		want time.Duration
	}{
		{nil, month},
		{[]router.ConnectOption{router.WithFailedMaxAge(90 * 24 * time.Hour)}, 90 * 24 * time.Hour},
		{[]router.ConnectOption{router.WithFailedMaxAge(2 * time.Minute)}, 2 * time.Minute},
		{[]router.ConnectOption{router.WithFailedMaxAge(0)}, 0},
	} {
		failed, report := maxAge(c.opts...)
		require.Equal(t, c.want, failed)
		require.Equal(t, month, report, "the report stream keeps its 30 days")
	}
}
