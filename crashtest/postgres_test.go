package crashtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// pgServer is a throwaway PostgreSQL cluster of the test's own (Debian's binaries: initdb and
// pg_ctl, run as the postgres user when the test runs as root), so that it can be crashed and
// restarted without touching the Postgres other tests share.
type pgServer struct {
	t    *testing.T
	bin  string
	dir  string
	port int
	user *user.User // nil: the current user
}

// startPostgres initialises and starts a cluster; it is stopped and removed when the test
// ends. The test is skipped when Debian's PostgreSQL binaries are missing.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Skip("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin): scripts/services.sh installs them")
	}
	p := &pgServer{t: t, bin: filepath.Dir(bins[len(bins)-1])}
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		u, err := user.Lookup("postgres")
		require.NoError(t, err, "the postgres user")
		p.user = u
	}
	dir, err := os.MkdirTemp("", "harvester-crash-pg-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	p.dir = filepath.Join(dir, "data")
	require.NoError(t, os.Mkdir(p.dir, 0o700))
	if p.user != nil {
		uid, _ := strconv.Atoi(p.user.Uid)
		gid, _ := strconv.Atoi(p.user.Gid)
		require.NoError(t, os.Chown(dir, uid, gid))
		require.NoError(t, os.Chown(p.dir, uid, gid))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p.port = ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	p.run("initdb", "-D", p.dir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale")
	p.start()
	t.Cleanup(func() { p.stop("immediate") })
	return p
}

// URL is the cluster's postgres database.
func (p *pgServer) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

func (p *pgServer) start() {
	p.t.Helper()
	p.run("pg_ctl", "-D", p.dir, "-l", filepath.Join(p.dir, "server.log"), "-w", "-t", "60", "start",
		"-o", fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c max_connections=200", p.port, filepath.Dir(p.dir)))
}

// stop stops the server; mode "immediate" is a crash: no checkpoint, recovery at the next
// start, every connection cut.
func (p *pgServer) stop(mode string) {
	_ = p.command("pg_ctl", "-D", p.dir, "-m", mode, "-w", "stop").Run()
}

func (p *pgServer) run(name string, args ...string) {
	p.t.Helper()
	out, err := p.command(name, args...).CombinedOutput()
	require.NoError(p.t, err, "%s: %s", name, out)
}

func (p *pgServer) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, name)
	var cmd *exec.Cmd
	if p.user != nil {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = "/" // the postgres user may not enter the test's directory
	return cmd
}
