package dirlock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// holderEnv makes the test binary a holder process: it holds the directory named by the
// variable, says "held" on stdout, and lets go when its stdin closes.
const holderEnv = "DIRLOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holderEnv); dir != "" {
		l, err := Acquire(dir)
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		if err := l.SetAddr("http://127.0.0.1:8080"); err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the test closes stdin
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestAnotherProcessIsRefusedAtOnce: while a process holds a directory, Acquire in another
// fails at once with a *HeldError naming the holder's pid, command and address; once the holder
// has ended, the directory is taken over.
func TestAnotherProcessIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	holder := exec.Command(os.Args[0], "--database-url", "postgres://u:secret@db/h", "--auth-header", "Authorization: x")
	holder.Env = append(os.Environ(), holderEnv+"="+dir)
	stdin, err := holder.StdinPipe()
	require.NoError(t, err)
	stdout, err := holder.StdoutPipe()
	require.NoError(t, err)
	holder.Stderr = os.Stderr
	require.NoError(t, holder.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "held\n", line)

	_, err = Acquire(dir)
	var held *HeldError
	require.True(t, errors.As(err, &held), "%v", err)
	require.NotNil(t, held.Holder)
	require.Equal(t, holder.Process.Pid, held.Holder.PID)
	require.Equal(t, "http://127.0.0.1:8080", held.Holder.Addr)
	require.Contains(t, err.Error(), dir+" is in use by process ")
	require.Contains(t, err.Error(), "--database-url postgres://db/h --auth-header …), running since ")
	require.NotContains(t, err.Error(), "secret", "no secret goes into the lock file")
	require.Contains(t, err.Error(), ", listening at http://127.0.0.1:8080")

	require.NoError(t, stdin.Close())
	require.NoError(t, holder.Wait())
	l, err := Acquire(dir)
	require.NoError(t, err, "the holder has ended: its lock file is taken over")
	require.NoError(t, l.Release())
}

// TestOneProcessShares: the holds of one process share the directory, which is free again
// only after the last Release.
func TestOneProcessShares(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, err := Acquire(dir)
	require.NoError(t, err)
	b, err := Acquire(dir)
	require.NoError(t, err)
	require.NoError(t, a.Release())
	require.NoError(t, a.Release(), "releasing twice is harmless")
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	mu.Lock()
	_, still := holds[abs]
	mu.Unlock()
	require.True(t, still, "b still holds it")
	require.NoError(t, b.Release())
	mu.Lock()
	_, still = holds[abs]
	mu.Unlock()
	require.False(t, still)
}

func TestCommandLeavesSecretsOut(t *testing.T) {
	t.Parallel()
	require.Equal(t, "harvester harvest --url https://data.example.gov/data.json --auth-header=… --nats-url nats://a:4222,nats://b:4222",
		command([]string{"/usr/bin/harvester", "harvest", "--url", "https://user:pw@data.example.gov/data.json",
			"--auth-header=Authorization: Bearer x", "--nats-url", "nats://u:p@a:4222,nats://b:4222"}))
}

// TestHolderNamedWhileRewritten: the lock file is read by refused processes at any moment, also
// while its holder rewrites it (SetAddr, when serve starts listening); every read names the
// holder. A read that met the file emptied or half written said it "names none yet" (CI,
// TestDataDirHeldByAnotherProcess): read tries again, and the holder no longer empties it first.
func TestHolderNamedWhileRewritten(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	path := filepath.Join(dir, FileName)
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		addrs := []string{"http://127.0.0.1:1", "http://[2001:db8::1]:65535/a-longer-address"}
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if err := l.SetAddr(addrs[i%2]); err != nil {
				done <- err
				return
			}
		}
	}()
	for i := range 60000 {
		if h := read(path); h == nil || h.PID != os.Getpid() {
			close(stop)
			t.Fatalf("read %d of the lock file while it is rewritten: holder %+v", i, h)
		}
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
