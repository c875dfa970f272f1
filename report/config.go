package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/param"
	"github.com/profsim/profsim/samplers"
	"github.com/profsim/profsim/sim"
)

// Settings are a run's settings, as its Description gives them, as the
// tidy rows' leading columns (CSV, JSONL): workload, seed, duration_ns,
// …, each VM setting that is a number, and profsim's version; numbers as
// plain numbers (durations in ns, booleans 0/1).
func Settings(rc *harness.Description) []Setting {
	dur, _ := param.ParseDuration(rc.Duration)
	var skip sim.Time
	if rc.Skip != "" {
		skip, _ = param.ParseDuration(rc.Skip)
	}
	cols := []Setting{
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
		cols = append(cols, Setting{name, v})
	}
	cols = append(cols, Setting{"profsim_version", rc.Profsim.Version}, Setting{"profsim_revision", rc.Profsim.Revision},
		Setting{"profsim_build", rc.Profsim.Build})
	return cols
}

func boolNum(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// writeConfigHeader prints the VM and any sampler settings that differ from
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

// lookupDefaults is a sampler's keys with their default values.
func lookupDefaults(name string) ([]param.KV, error) {
	r, err := samplers.Spec{Name: name}.Resolve()
	if err != nil {
		return nil, err
	}
	return r.Params, nil
}
