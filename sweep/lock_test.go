package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
