package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// --concurrency sets how many messages of each per-record stage a process handles at once;
// --subscriptions, its old name, still sets the same value, so existing scripts keep working.
func TestConcurrencyFlag(t *testing.T) {
	for _, args := range [][]string{{"--concurrency", "7"}, {"--subscriptions", "7"}} {
		for _, cmd := range []func() int{
			func() int {
				c := serveCommand()
				require.NoError(t, c.ParseFlags(args))
				n, _ := c.Flags().GetInt("concurrency")
				return n
			},
			func() int {
				c := workerCommand()
				require.NoError(t, c.ParseFlags(args))
				n, _ := c.Flags().GetInt("concurrency")
				return n
			},
		} {
			require.Equal(t, 7, cmd(), "%v", args)
		}
	}
}
