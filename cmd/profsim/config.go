package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

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
	writeKeys(w, param.Keys(harness.SettingsOf(&cfg)))
}

// writeKeys prints keys as an aligned table.
func writeKeys(w io.Writer, keys []param.Key) {
	rows := [][4]string{{"key", "type", "default", "range"}}
	for _, k := range keys {
		rows = append(rows, [4]string{k.Name, k.Type(), k.Default, param.RangeText(k.Check)})
	}
	var width [4]int
	for _, r := range rows {
		for c := range r {
			width[c] = max(width[c], utf8.RuneCountInString(r[c]))
		}
	}
	for i, r := range rows {
		for c := range r {
			fmt.Fprintf(w, "  %s%s", r[c], strings.Repeat(" ", width[c]-utf8.RuneCountInString(r[c])))
		}
		if i == 0 {
			fmt.Fprintln(w, "  meaning; source of the default")
			continue
		}
		k := keys[i-1]
		line := k.Doc
		if k.Source != "" {
			line += "; " + k.Source
		}
		fmt.Fprintln(w, "  "+line)
	}
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
