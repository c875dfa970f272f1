package sweep

import (
	"errors"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A second LockDir of a directory is refused, naming the holder, until
// the first is released.
func TestLockDirRefusesASecondHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	l, err := LockDir(dir, "profsim sweep")
	require.NoError(t, err)
	_, err = LockDir(dir, "profsim sweep")
	var le *LockedError
	require.True(t, errors.As(err, &le), "%v", err)
	assert.Equal(t, dir, le.Dir)
	host, _ := os.Hostname()
	assert.Contains(t, le.Holder, fmt.Sprintf("pid %d on host %s since ", os.Getpid(), host))
	assert.Contains(t, le.Holder, "(profsim sweep)")
	assert.Contains(t, err.Error(), "in use by pid ")
	require.NoError(t, l.Unlock())
	l2, err := LockDir(dir, "profsim sweep merge")
	require.NoError(t, err, "a released lock is free")
	require.NoError(t, l2.Unlock())
}

// flockSystems are the systems whose syscall package has Flock
// (go doc syscall.Flock, GOOS=each).
var flockSystems = []string{"android", "darwin", "dragonfly", "freebsd", "illumos", "ios", "linux", "netbsd", "openbsd"}

// Exactly one of lock_flock.go and lock_other.go builds on each system,
// and lock_flock.go, which calls syscall.Flock, only where there is one:
// Solaris and AIX are Unix but have no flock(2).
func TestLockFileBuildsWhereFlockIs(t *testing.T) {
	for _, goos := range []string{"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
		"linux", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos"} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH = goos, "amd64"
		match := func(name string) bool {
			ok, err := ctx.MatchFile(".", name)
			require.NoError(t, err)
			return ok
		}
		unix, other := match("lock_flock.go"), match("lock_other.go")
		assert.NotEqual(t, unix, other, "%s: exactly one of lock_flock.go and lock_other.go", goos)
		assert.Equal(t, slices.Contains(flockSystems, goos), unix, "%s: lock_flock.go builds where syscall.Flock is", goos)
	}
}
