package harness

import (
	"flag"
	"fmt"
	"io"

	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/sim"
)

// WriteSettingKeys lists the keys a Spec's Sets (--set) take, with the
// default VM's values (profsim run --keys).
func WriteSettingKeys(w io.Writer) {
	cfg := DefaultConfig()
	fmt.Fprintf(w, "Keys of --set KEY=VALUE (defaults of --vm %s):\n", DefaultVM)
	param.WriteKeys(w, param.Keys(SettingsOf(&cfg)))
}

// WriteLimitsHelp explains the run's limits, the flags that set them and
// their defaults (profsim run --help).
func WriteLimitsHelp(w io.Writer) {
	lim := sim.DefaultLimits()
	fmt.Fprintf(w, `
Limits: a run that reaches one stops at once with exit status 2 and one line
naming the limit, the value reached and the flag that raises it.
  threads        --max-threads N (default %d): application threads created
                 over the run, the program's and the spawned ones
  memory         --max-memory SIZE (default %s): the run's estimated memory,
                 counted as it goes: the program and its code (a workload
                 file is refused before it is read when %d bytes for each of
                 its bytes are over the limit), calling contexts with their
                 share of the truth profile, threads, their deepest stacks,
                 the run's counts copied at --skip, and the export of the
                 profiles to --out; unless GOMEMLIMIT
                 is set it is also Go's soft memory limit, which keeps the
                 process near it
  input          --max-input-size SIZE (default %s): the largest workload
                 file read; only regular files (or links to one) are read
  CPUs           --cpus N: at most %d
`, lim.MaxThreads, sim.FormatBytes(lim.MaxMemory), sim.WorkloadBytesPerByte, sim.FormatBytes(DefaultMaxInput), sim.MaxCPUs)
}

// WriteRunHelp is profsim run's help: its usage, the VM presets, the order
// in which a Spec's settings apply, and fs's flags (the Spec's, Bind, and
// the caller's own).
func WriteRunHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Usage: profsim run --workload NAME|FILE [flags]")
	fmt.Fprintln(w, "\nOn a terminal, stderr shows how far the run has got (simulated time, elapsed, ETA); elsewhere it stays quiet.")
	fmt.Fprintln(w, "\nVM presets (--vm):")
	for _, p := range Presets() {
		fmt.Fprintf(w, "  %-10s %s\n             stands for: %s\n", p.Name, p.Summary, p.StandsFor)
	}
	fmt.Fprintln(w, "\nSettings apply in order: --vm preset, the shorthand flags given (--inline, --strip-mining, --debug-non-safepoints), --jvm-flags, --set.")
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}
