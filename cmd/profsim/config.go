package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// columns are the run's settings as tidy-table columns: numbers as plain
// numbers (durations in ns, booleans 0/1).
func configColumns(rc *harness.Description) []setting {
	dur, _ := param.ParseDuration(rc.Duration)
	var skip sim.Time
	if rc.Skip != "" {
		skip, _ = param.ParseDuration(rc.Skip)
	}
	cols := []setting{
		{"workload", rc.Workload.Name}, {"workload_sha256", rc.Workload.SHA256},
		{"seed", strconv.FormatUint(rc.Seed, 10)}, {"duration_ns", strconv.FormatInt(int64(dur), 10)},
		{"skip_ns", strconv.FormatInt(int64(skip), 10)}, {"threads", rc.Threads},
		{"cpus", strconv.Itoa(rc.CPUs)}, {"mode", rc.Mode}, {"vm", rc.VM},
		{"baseline_only", boolNum(rc.BaselineOnly)}, {"gc", boolNum(rc.GC)},
	}
	var st harness.Settings
	for k, v := range rc.Settings {
		if err := param.Set(&st, k, v); err != nil {
			panic("profsim: recorded setting does not set: " + err.Error())
		}
	}
	for _, n := range param.Numbers(&st) {
		name := strings.ReplaceAll(n.Key.Name, ".", "_")
		if n.Key.Kind == param.Duration {
			name += "_ns"
		}
		v := strconv.FormatFloat(n.Value, 'g', -1, 64)
		if n.Key.Kind != param.Float {
			v = strconv.FormatInt(int64(n.Value), 10) // exact below 2^53, and no exponent
		}
		cols = append(cols, setting{name, v})
	}
	cols = append(cols, setting{"profsim_version", rc.Profsim.Version}, setting{"profsim_revision", rc.Profsim.Revision},
		setting{"profsim_build", rc.Profsim.Build})
	return cols
}

func boolNum(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// writeHeader prints the VM and any sampler settings that differ from
// their defaults, above the table.
func writeConfigHeader(w io.Writer, rc *harness.Description) {
	fmt.Fprintf(w, "vm %s", rc.VM)
	if rc.BaselineOnly {
		fmt.Fprint(w, "   baseline only (no optimizing JIT)\n")
	} else {
		fmt.Fprintf(w, "   inline %s   counted-loop polls %s   debug-non-safepoints %s",
			rc.Settings["jit.inline"], stripText(rc.Settings["jit.strip_mining_iter"], rc.Settings["jit.loop_unroll"]), rc.Settings["jit.debug_non_safepoints"])
		fmt.Fprintf(w, "%s\n", safepointText(rc.Settings))
	}
	if rc.Skip != "" {
		fmt.Fprintf(w, "profiled from %s on (--skip): every profile (the truth too) and the run's times and counts are that window's\n", rc.Skip)
	}
	if rc.Threads != "" {
		fmt.Fprintf(w, "threads %s only (--threads): every profile (the truth too) and the application CPU are theirs\n", rc.Threads)
	}
	if rc.Truth != "" {
		fmt.Fprint(w, "truth per method (--truth methods): its contexts are the methods, its stacks one frame deep\n")
	}
	for _, s := range rc.Samplers {
		if set := nonDefault(s); set != "" {
			fmt.Fprintf(w, "%s: %s\n", s.ID, set)
		}
	}
}

// safepointText names the global safepoint's costs when any is set
// (hotspot17's measured ones, or --set safepoint.KEY): the VM thread's
// re-check periods before and after 1 ms and its overhead per safepoint.
func safepointText(set map[string]string) string {
	recheck, late, over := set["safepoint.sync_recheck"], set["safepoint.sync_recheck_late"], set["safepoint.operation_overhead"]
	if recheck == "0s" && over == "0s" {
		return ""
	}
	text := "   safepoint re-check " + recheck
	if late != "0s" {
		text += " (" + late + " past 1ms)"
	}
	return text + ", overhead " + over
}

// stripText says where counted loops poll: every strip of n compiled
// iterations, each unroll source iterations of a small body
// (jit.loop_unroll_max_body).
func stripText(n, unroll string) string {
	if n == "0" {
		return "none"
	}
	text := "every iteration"
	if n != "1" {
		text = "every " + n + " iterations"
	}
	if u, err := strconv.ParseInt(unroll, 10, 64); err == nil && u > 1 {
		if k, err := strconv.ParseInt(n, 10, 64); err == nil {
			text += fmt.Sprintf(" (%d of a small body, unrolled %d×)", k*u, u)
		}
	}
	return text
}

// nonDefault lists a sampler's keys that differ from its defaults.
func nonDefault(s harness.SamplerConfig) string {
	def, err := lookupDefaults(s.Name)
	if err != nil {
		return ""
	}
	var parts []string
	for _, kv := range def {
		if v := s.Params[kv.Key]; v != kv.Value {
			parts = append(parts, kv.Key+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

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

// lookupDefaults is a sampler's keys with their default values.
func lookupDefaults(name string) ([]param.KV, error) {
	r, err := samplers.Spec{Name: name}.Resolve()
	if err != nil {
		return nil, err
	}
	return r.Params, nil
}
