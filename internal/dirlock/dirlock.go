// Package dirlock keeps a directory to one process at a time and says who has it. Acquire takes
// an exclusive advisory lock (flock, github.com/gofrs/flock) on the file FileName in the
// directory without waiting, and writes the holder into it (its pid, command, start time and,
// once it has one, its HTTP address); when another process holds the lock, Acquire fails at
// once with a *HeldError that names that holder. The kernel lets go of the lock when its
// process ends, crashed or killed: a file left behind by a dead process is taken over.
//
// Within one process the lock is shared: every Acquire of one directory gets a hold on the same
// lock, released with the last Release, so that the parts of one process (its pipeline, a
// search in a test) do not refuse each other.
package dirlock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// FileName is the lock file in a held directory: JSON of its Holder.
const FileName = "harvester.lock"

// Holder is the process that holds a directory, as its lock file says.
type Holder struct {
	PID int `json:"pid"`
	// Command is the holder's program and arguments, with the values of secrets (the userinfo
	// of a URL, --auth-header) left out.
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
	// Addr is the holder's HTTP address (http://host:port), once it listens; "" otherwise.
	Addr string `json:"addr,omitempty"`
}

// HeldError is Acquire's error when another process holds the directory.
type HeldError struct {
	Dir string
	// Holder is what the lock file says; nil when it says nothing yet (the holder took the lock
	// an instant ago) or cannot be read.
	Holder *Holder
}

// Error is one sentence: the directory, and the holder's pid, command, start time and address.
func (e *HeldError) Error() string {
	h := e.Holder
	if h == nil {
		return fmt.Sprintf("%s is in use by another process (its lock file %s names none yet)", e.Dir, FileName)
	}
	at := ""
	if h.Addr != "" {
		at = ", listening at " + h.Addr
	}
	return fmt.Sprintf("%s is in use by process %d (%s), running since %s%s", e.Dir, h.PID, h.Command,
		h.Since.UTC().Format("2006-01-02 15:04:05 UTC"), at)
}

// Lock is one hold on a directory; Release it when done.
type Lock struct {
	held *held
	once sync.Once
}

// held is a directory this process holds, and how many Locks share it.
type held struct {
	path   string // the lock file
	fl     *flock.Flock
	holder Holder
	refs   int
}

var (
	mu    sync.Mutex
	holds = map[string]*held{} // by absolute directory
)

// Acquire holds dir (created when missing) for this process: at once, or a *HeldError when
// another process holds it; any other error is the file system's.
func Acquire(dir string) (*Lock, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	if h, ok := holds[abs]; ok {
		h.refs++
		return &Lock{held: h}, nil
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	path := filepath.Join(abs, FileName)
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if !ok {
		return nil, &HeldError{Dir: dir, Holder: read(path)}
	}
	h := &held{path: path, fl: fl, refs: 1,
		holder: Holder{PID: os.Getpid(), Command: command(os.Args), Since: time.Now().Truncate(time.Second)}}
	if err := h.write(); err != nil {
		_ = fl.Unlock()
		return nil, err
	}
	holds[abs] = h
	return &Lock{held: h}, nil
}

// SetAddr writes the holder's HTTP address (e.g. http://127.0.0.1:8080) into the lock file, so
// that a process refused the directory can be told where to send its request instead.
func (l *Lock) SetAddr(addr string) error {
	mu.Lock()
	defer mu.Unlock()
	l.held.holder.Addr = addr
	return l.held.write()
}

// Release gives up this hold; the directory is free once every hold of the process is released.
// Releasing twice is harmless.
func (l *Lock) Release() error {
	var err error
	l.once.Do(func() {
		mu.Lock()
		defer mu.Unlock()
		h := l.held
		if h.refs--; h.refs > 0 {
			return
		}
		delete(holds, filepath.Dir(h.path))
		err = h.fl.Unlock()
	})
	return err
}

// write replaces the lock file's content with the holder (the lock is on the file, not on its
// content, so rewriting it keeps the lock). The file is overwritten in place and then cut to
// the new length, never truncated first: a process refused the directory reads it at any
// moment, and an emptied file would name no holder (read takes the first JSON value, so a tail
// of the old content left for an instant is ignored).
func (h *held) write() error {
	b, err := json.Marshal(h.holder)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	_, err = f.WriteAt(b, 0)
	if err == nil {
		err = f.Truncate(int64(len(b)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	return nil
}

// readTries and readWait bound how long read waits for a lock file that names no holder yet:
// its holder took the lock an instant ago and is about to write it.
const (
	readTries = 20
	readWait  = 25 * time.Millisecond
)

// read is the holder a lock file names (its first JSON value); nil when it names none after
// readTries reads.
func read(path string) *Holder {
	for i := range readTries {
		if i > 0 {
			time.Sleep(readWait)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var h Holder
		if json.NewDecoder(bytes.NewReader(b)).Decode(&h) == nil && h.PID != 0 {
			return &h
		}
	}
	return nil
}

// command is args as one line: the program's base name, then the arguments, with the userinfo
// of URLs and the value of --auth-header left out (the lock file is readable by whoever reads
// the directory).
func command(args []string) string {
	if len(args) == 0 {
		return ""
	}
	out := []string{filepath.Base(args[0])}
	secret := false
	for _, a := range args[1:] {
		switch {
		case secret:
			a, secret = "…", false
		case a == "--auth-header":
			secret = true
		case strings.HasPrefix(a, "--auth-header="):
			a = "--auth-header=…"
		default:
			a = withoutUserinfo(a)
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

// withoutUserinfo removes "user:password@" from every URL in s.
func withoutUserinfo(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, "/?#, ")
		if end < 0 {
			end = len(s)
		}
		if at := strings.LastIndex(s[:end], "@"); at >= 0 {
			s = s[at+1:]
		}
	}
}
