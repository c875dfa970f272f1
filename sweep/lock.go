package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockFile is the file in an output directory whose lock a sweep (or a
// merge into the directory) holds while it writes there. It holds the
// holder's process ID, host and start time, for the message of a second
// sweep that finds the directory taken.
const LockFile = ".lock"

// Lock is an exclusive lock on an output directory: an flock(2) on
// DIR/.lock, which the kernel releases when its holder exits however it
// ends (a SIGKILL, a node that reboots), so no stale lock is ever left.
type Lock struct {
	f *os.File
}

// LockedError is LockDir's error when another process holds the lock.
type LockedError struct {
	Dir string
	// Holder is what the holder wrote in the lock file: "pid P on host H
	// since T (WHAT)", or "" if it has not written it yet.
	Holder string
}

func (e *LockedError) Error() string {
	who := e.Holder
	if who == "" {
		who = "a process that has not yet written its name in " + filepath.Join(e.Dir, LockFile)
	}
	return fmt.Sprintf("%s is in use by %s; wait for it to end or give another --out", e.Dir, who)
}

// LockDir creates dir if needed and takes its lock, without waiting: if
// another process (or another Lock of this one) holds it, the error is a
// *LockedError naming the holder. what says who takes the lock ("profsim
// sweep"), for that message.
func LockDir(dir, what string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			b, _ := os.ReadFile(path)
			return nil, &LockedError{Dir: dir, Holder: strings.TrimSpace(string(b))}
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "unknown"
	}
	info := fmt.Sprintf("pid %d on host %s since %s (%s)\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339), what)
	if err = f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(info), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock (and clears the holder's name).
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	l.f.Truncate(0) // best effort: the lock, not the text, is what counts
	err := l.f.Close()
	l.f = nil
	return err
}

// errLocked is flock's error when the lock is held elsewhere.
var errLocked = errors.New("locked")
