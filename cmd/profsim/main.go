// Command profsim runs simulated Java-like programs and shows what really
// happened (the ground truth) and, as samplers are added, what each
// profiler claims.
//
//	profsim run --workload hotcold [--samplers truth,safepoint,tprof,async] [--seed N] [--duration 2s] [--cpus K] [--format table|json] [--out DIR]
//	profsim workloads
//	profsim samplers
//	profsim study [NAME --out DIR]
//	profsim sweep GRID.yaml --out DIR [--jobs N] [--shard I/N] | merge DIR... --out DIR | status DIR
//
// Exit status: 0 on success, 2 on bad input (unknown workload, bad flag
// value, unreadable or invalid workload file), 1 if writing output fails
// or a sweep's run failed, 130/143 after SIGINT/SIGTERM.
package main

import (
	"errors"
	"fmt"
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
  profsim workloads                          list the built-in workloads
  profsim samplers                           list the profilers
  profsim study [NAME --out DIR]             list the paper reproductions, or run one
  profsim sweep GRID.yaml --out DIR          run a parameter grid (docs/SWEEPS.md)
  profsim import --jfr-json REC.json --out M.yaml   model a recorded Java program (docs/IMPORT.md)

Run 'profsim run -h' for the run flags.
`

// Main is the whole command, testable without a process.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(args[1:], stdout)
	case "workloads":
		err = cmdWorkloads(args[1:], stdout)
	case "samplers":
		err = cmdSamplers(args[1:], stdout)
	case "study":
		err = cmdStudy(args[1:], stdout)
	case "sweep":
		err = cmdSweep(args[1:], stdout, stderr)
	case "import":
		err = cmdImport(args[1:], stdout)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usagef("unknown command %q (want run, workloads, samplers, study, sweep or import)", args[0])
	}
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
