package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/profsim/profsim/harness"
	"io"
)

const versionUsage = `Usage: profsim version [--format text|json]

Prints which profsim this is: its version (set at link time with
-ldflags "-X github.com/profsim/profsim.Version=V", else the module's),
the VCS revision the build recorded (or "unknown": go run, -buildvcs=false,
a build outside a git checkout), the Go toolchain and target, and the
build identity: a hash of the sources, the toolchain, the target and the
dependencies. Every run key holds the build identity, so a sweep refuses
to resume or merge results of other code (docs/SWEEPS.md).
`

// cmdVersion prints the version and the build identity.
func cmdVersion(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "text", "text or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, versionUsage)
			return errHelp
		}
		return usagef("version: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("version: unexpected argument %q", fs.Arg(0))
	}
	v := harness.CurrentVersion()
	switch *format {
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	case "text":
		_, err := fmt.Fprint(stdout, v)
		return err
	default:
		return usagef("version: --format: %q is not text or json", *format)
	}
}
