// Command profsim runs simulated Java-like programs and shows what really
// happened (the ground truth) and, as samplers are added, what each
// profiler claims.
//
//	profsim run --workload hotcold [--samplers truth,safepoint,tprof,async] [--seed N] [--duration 2s] [--cpus K] [--format table|json] [--out DIR]
//	profsim init NAME
//	profsim workloads
//	profsim samplers
//	profsim study [NAME --out DIR [--store DIR [--shard I/N] | --from DIR]]
//	profsim sweep GRID.yaml --out DIR [--jobs N] [--shard I/N] | merge DIR... --out DIR | status DIR
//	profsim version [--format json]
//
// Exit status: 0 on success, 2 on bad input (unknown workload, bad flag
// value, unreadable or invalid workload file, conflicting flags) or a run
// that reached a limit (--max-threads, --max-memory), 1 if writing output
// fails (standard output included) or a sweep's run failed, 130/143
// after SIGINT/SIGTERM.
package main

import (
	"errors"
	"fmt"
	"github.com/profsim/profsim/internal/nearest"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is bad input from the user: exit status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

const usage = `profsim simulates a Java-like VM so that profilers can be judged against exact ground truth.

Usage:
  profsim run --workload NAME|FILE [flags]   run a program, print its profile
  profsim init NAME                          write NAME.yaml, a commented template workload
  profsim timeline [run flags] --from T --window D --out F.svg [--png F.png] [--polls]
                                             draw thread lanes, samples and safepoints over a window
  profsim report [run flags] --html FILE     one self-contained page: table, bias matrices,
                                             flame graphs, timeline
  profsim workloads                          list the built-in workloads
  profsim show NAME|FILE                     print a workload's methods, statements numbered as
                                             profiles number lines
  profsim samplers                           list the profilers
  profsim study [NAME --out DIR]             list the paper reproductions, or run one
  profsim sweep GRID.yaml --out DIR          run a parameter grid (docs/SWEEPS.md)
  profsim import --jfr-json REC.json --out M.yaml   model a recorded Java program (docs/IMPORT.md)
  profsim version                            the version and the build identity run keys hold

Run 'profsim run -h' for the run flags.
`

// Main is the whole command, testable without a process.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	out := &checkedWriter{w: stdout}
	err := command(args, out, stderr)
	if out.err != nil && (err == nil || errors.Is(err, errHelp) || errors.Is(err, out.err)) {
		// Output that did not reach stdout (a full disk, a closed
		// pipe) is a failure, however the command itself went.
		err = fmt.Errorf("writing standard output: %w", out.err)
	}
	return exitStatus(err, stderr)
}

// command dispatches to the subcommand args[0] names.
func command(args []string, stdout, stderr io.Writer) (err error) {
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "init":
		err = cmdInit(args[1:], stdout)
	case "timeline":
		err = cmdTimeline(args[1:], stdout)
	case "report":
		err = cmdReport(args[1:], stdout)
	case "workloads":
		err = cmdWorkloads(args[1:], stdout)
	case "show":
		err = cmdShow(args[1:], stdout)
	case "samplers":
		err = cmdSamplers(args[1:], stdout)
	case "study":
		err = cmdStudy(args[1:], stdout, stderr)
	case "sweep":
		err = cmdSweep(args[1:], stdout, stderr)
	case "import":
		err = cmdImport(args[1:], stdout, stderr)
	case "version", "--version":
		err = cmdVersion(args[1:], stdout)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
	default:
		cmds := []string{"run", "init", "timeline", "report", "workloads", "show", "samplers", "study", "sweep", "import", "version"}
		if s := nearest.Name(args[0], cmds); s != "" {
			err = usagef("unknown command %q; did you mean %q? (want run, init, timeline, report, workloads, show, samplers, study, sweep, import or version)", args[0], s)
		} else {
			err = usagef("unknown command %q (want run, init, timeline, report, workloads, show, samplers, study, sweep, import or version)", args[0])
		}
	}
	return err
}

// exitStatus reports err on stderr and returns the exit status it means.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "profsim: "+strings.ReplaceAll(err.Error(), "\n", " "))
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	var ec exitCodeError
	if errors.As(err, &ec) {
		return ec.code
	}
	return 1
}

var errHelp = errors.New("help shown")

// checkedWriter remembers the first error writing to w and fails every
// write after it.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}
