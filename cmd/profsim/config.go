package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/param"
)

// printSettingKeys lists the keys --set takes.
func printSettingKeys(w io.Writer) {
	cfg := harness.DefaultConfig()
	if err := harness.ApplyPreset(&cfg, harness.DefaultVM); err != nil {
		panic(err)
	}
	fmt.Fprintf(w, "Keys of --set KEY=VALUE (defaults of --vm %s):\n", harness.DefaultVM)
	param.WriteKeys(w, param.Keys(harness.SettingsOf(&cfg)))
}

func runHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Usage: profsim run --workload NAME|FILE [flags]")
	fmt.Fprintln(w, "\nOn a terminal, stderr shows how far the run has got (simulated time, elapsed, ETA); elsewhere it stays quiet.")
	fmt.Fprintln(w, "\nVM presets (--vm):")
	for _, p := range harness.Presets() {
		fmt.Fprintf(w, "  %-10s %s\n             stands for: %s\n", p.Name, p.Summary, p.StandsFor)
	}
	fmt.Fprintln(w, "\nSettings apply in order: --vm preset, the shorthand flags given (--inline, --strip-mining, --debug-non-safepoints), --jvm-flags, --set.")
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}
