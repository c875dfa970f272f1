//go:build !(android || darwin || dragonfly || freebsd || illumos || ios || linux || netbsd || openbsd)

package sweep

import (
	"fmt"
	"os"
	"runtime"
)

// flock is not implemented where syscall has no Flock (Windows, Solaris,
// AIX, …): a sweep refuses to write rather than risk two sweeps in one
// directory.
func flock(f *os.File) error {
	return fmt.Errorf("locking an output directory is not supported on %s", runtime.GOOS)
}
