package importer

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/jfrjson"
	"github.com/profsim/profsim/profile"
)

// WriteReport prints what the import of m, written to out, made of its
// recording: the lines `profsim import` prints.
func WriteReport(w io.Writer, out string, m *Model) {
	r := &m.Report
	fmt.Fprintf(w, "wrote %s: %d methods, %d threads\n", out, len(m.Program.Methods), len(m.Program.Threads))
	fmt.Fprintf(w, "recording: %d samples over %v, %v per sample; %d truncated (not used), %d compilations, %d inlining decisions\n",
		r.Samples, r.Span.Round(time.Millisecond), r.Period, r.Truncated, r.Compilations, r.Inlinings)
	if r.NativeSamples+r.NativeOther+r.NativeUnusable > 0 {
		fmt.Fprintf(w, "native: %d native method samples modelled as native statements, %d of threads without execution samples and %d truncated or empty (not used)\n",
			r.NativeSamples, r.NativeOther, r.NativeUnusable)
	}
	if r.Tick > 0 {
		fmt.Fprintf(w, "weights: JFR's sampler ticked every %v; a native method sample stands for a tick, an execution sample for %v (its busiest thread's time less native code and throwables' walks, over its execution samples): %d native method samples are %d samples of %v\n",
			r.Tick, r.Period, r.NativeSamples, r.NativeModelled, r.Period)
	}
	if t := r.Throws; t.Events > 0 {
		fmt.Fprintf(w, "throwables: %d stack walks (%.0f frames each on average, %.1f ms in all) modelled as %d samples of Throwable.fillInStackTrace(int); %d of threads without execution samples, %d of the recorder's threads, %d truncated or empty, %d of classes whose fillInStackTrace does not walk (not used)\n",
			t.Used, t.MeanFrames, t.Time/1e6, t.Samples, t.Other, t.Recorder, t.Unusable, t.Unwalked)
		if t.Used > 0 {
			perSec := 0.0
			if r.Span > 0 {
				perSec = float64(t.Deopts) / r.Span.Seconds()
			}
			fmt.Fprintf(w, "throwables' handlers (the class files' exception tables, each throwable thrown where it was made): %d in the method that made it, %d one frame up, %d further up, %d not found; on the way they enter %d compiled frames from a callee (%.0f a second), which HotSpot deoptimizes while a JVMTI agent holds exception events; the model throws the %d caught in a caller after its calls of their constructors at %d call sites (call.throws), deoptimizing its compiled frames alike\n",
				t.Caught[0], t.Caught[1], t.Caught[2], t.Caught[3], t.Deopts, perSec, t.Thrown, t.Sites)
		}
	}
	if t := r.Throws; t.SharedSites > 0 {
		fmt.Fprintf(w, "shared throwables: %d call sites call a method that throws, on every call, an object made before it (the class files: no return, the value thrown read from a field or returned by a fluent setter), which no throwable event counts; the model throws once a call there (call.throws), caught where the recorded stacks through the site would catch it\n", t.SharedSites)
	}
	if r.SitesInlined+r.SitesCalled > 0 {
		fmt.Fprintf(w, "inlining by site: C2 inlined %d call sites' callees and called %d sites' where it decided otherwise elsewhere; the model's JIT follows them (call.inline)\n",
			r.SitesInlined, r.SitesCalled)
	}
	if r.CallerSites+r.CallerVirtualSites+r.CallerUnplaced > 0 {
		fmt.Fprintf(w, "calls by caller: %d call sites are called as often, and %d virtual call sites' receivers mixed as, the samples through each of their method's callers say (%d probabilities by caller, branch.by_caller; %d receiver mixes, virtual_call.by_caller); %d call sites need more calls through a caller than their method runs there: their probabilities are scaled to keep their calls, their receivers keep one mix\n",
			r.CallerSites, r.CallerVirtualSites, r.CallerProbabilities, r.CallerMixes, r.CallerUnplaced)
	}
	if r.DepthSites+r.DepthVirtualSites+r.DepthUnplaced > 0 {
		fmt.Fprintf(w, "calls by depth: %d call sites of recursive methods are called as often, and %d virtual call sites' receivers mixed as, the samples at each depth of the recursion say (branch.by_depth, virtual_call.by_depth); %d of them scaled to keep their calls\n",
			r.DepthSites, r.DepthVirtualSites, r.DepthUnplaced)
	}
	modelled := map[string]bool{}
	for _, th := range m.Program.Threads {
		modelled[th.Name] = true
	}
	for _, l := range r.CPULoad {
		if !modelled[l.Thread] {
			continue
		}
		if r.HWThreads > 0 {
			on := l.OnCPU(r.HWThreads)
			fmt.Fprintf(w, "cpu: %s used %.3f of the machine's CPU (mean of %d jdk.ThreadCPULoad events): on %d hardware threads (jdk.CPUInformation) it was on a CPU %.0f %% of the time and off it, waiting, %.0f %%; the model runs all its time on a CPU\n",
				l.Thread, l.Load, l.Events, r.HWThreads, 100*on, 100*(1-on))
		} else {
			fmt.Fprintf(w, "cpu: %s used %.3f of the machine's CPU (mean of %d jdk.ThreadCPULoad events); the recording has no jdk.CPUInformation, so how much of one CPU that is is unknown (tools/realapps/profsim.jfc records it)\n",
				l.Thread, l.Load, l.Events)
		}
	}
	fmt.Fprintf(w, "structure: %d methods without a class file, %d caller frames not at an invoke, %d inferred loops\n",
		len(r.NoClassFile), r.Mismatched, r.InferredLoops)
	if l := r.Loops; l != (LoopKinds{}) {
		fmt.Fprintf(w, "loops: %d from the class files: %d uncounted (a poll on every back edge), %d counted with a bound computed at run time (strip-mined: a poll at least at their exit), %d counted with literal bounds; %d with trips counted from the samples of their paths\n",
			l.Uncounted+l.RuntimeBound+l.Literal, l.Uncounted, l.RuntimeBound, l.Literal, l.FromPaths)
		if l.EveryTripCalls > 0 {
			fmt.Fprintf(w, "every-trip calls: %d call sites made on every trip of their loop (or every path of their method) in the class file, marked every_trip: the JIT drops such a loop's back-edge poll while the call stays a call\n", l.EveryTripCalls)
		}
	}
	compiled := 0
	for i := range m.Program.Methods {
		if m.Program.Methods[i].Compiled {
			compiled++
		}
	}
	fmt.Fprintf(w, "compiled: %d of %d methods ran compiled in the recording (compiled: true; frame types %s)\n",
		compiled, len(m.Program.Methods), frameTypes(r.FrameTypes))
	if len(r.Recorder) > 0 {
		fmt.Fprintf(w, "recorder threads: %d samples of %s left out (--keep-recorder-threads keeps them)\n",
			r.RecorderSamples, strings.Join(r.Recorder, ", "))
	}
	for i, o := range r.Refinement {
		fmt.Fprintf(w, "refinement run %d: method overlap %.3f before rescaling\n", i+1, o)
	}
}

// WriteHeader writes the provenance of a model file imported from the
// recording file rec with the classpath entries cp, as YAML comments: the
// lines `profsim import` puts above the model.
func WriteHeader(w io.Writer, rec string, cp []string, r *Report) {
	fmt.Fprintf(w, "# Generated by profsim import (docs/IMPORT.md) from %s\n", filepath.Base(rec))
	if len(cp) > 0 {
		bases := make([]string, len(cp))
		for i, p := range cp {
			bases[i] = filepath.Base(p)
		}
		fmt.Fprintf(w, "# classpath: %s\n", strings.Join(bases, " "))
	}
	fmt.Fprintf(w, "# %d samples (%d truncated, not used) of %d threads over %v, %v of CPU each\n",
		r.Samples, r.Truncated, r.Threads, r.Span.Round(time.Millisecond), r.Period)
	if r.NativeSamples > 0 {
		each := r.Period
		if r.Tick > 0 {
			each = r.Tick
		}
		fmt.Fprintf(w, "# %d native method samples of the same threads, %v each: native statements\n", r.NativeSamples, each)
	}
	if t := r.Throws; t.Used > 0 {
		fmt.Fprintf(w, "# %d throwables of the same threads (of %d recorded), %.0f frames deep on average: their stack walks are %d samples of Throwable.fillInStackTrace(int)\n",
			t.Used, t.Events, t.MeanFrames, t.Samples)
	}
	fmt.Fprintf(w, "# %d methods, %d without a class file; %d inferred loops\n", r.Methods, len(r.NoClassFile), r.InferredLoops)
	if r.FitVM != "" && r.FitVM != DefaultFitVM {
		fmt.Fprintf(w, "# fitted for --vm %s (profsim import --fit-vm)\n", r.FitVM)
	}
}

// Check runs the model until its threads end and compares its
// ground truth with the recording's profile.
func Check(ctx context.Context, w io.Writer, m *Model, seed uint64) error {
	vm, err := harness.PresetConfig(m.Report.FitVM)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	cfg := RunToEnd(vm, &m.Report)
	cfg.Sim.Seed = seed
	outc, err := harness.RunContext(ctx, m.Program, cfg)
	if err != nil {
		return err
	}
	truth := outc.Profiles["truth"]
	fmt.Fprintf(w, "check: simulated %v; method overlap %.3f, context overlap %.3f (truth vs recording)\n",
		time.Duration(outc.Result.End), profile.OverlapMethods(truth, m.Recorded), profile.OverlapContexts(truth, m.Recorded))
	unseen := profile.UnseenContexts(m.Recorded)
	fmt.Fprintf(w, "  about %.3f of the program's time went to calling contexts the recording never sampled (Good–Turing: its contexts sampled once, over its samples), so even an exact model of the program would overlap its contexts by at most about %.3f\n",
		unseen, 1-unseen)
	rec := m.Recorded.MethodWeights()
	tru := truth.MethodWeights()
	recTotal, truTotal := float64(m.Recorded.TotalWeight()), float64(truth.TotalWeight())
	fmt.Fprintf(w, "  %-60s %9s %9s\n", "method (top 15 recorded)", "recorded", "truth")
	for i, s := range m.Recorded.Flat() {
		if i == 15 {
			break
		}
		fmt.Fprintf(w, "  %-60s %8.2f%% %8.2f%%\n", s.Name, 100*rec[s.Name]/recTotal, 100*tru[s.Name]/truTotal)
	}
	return nil
}

// frameTypes lists the recording's frames by type, in JFR's order.
func frameTypes(n map[jfrjson.FrameType]int) string {
	var parts []string
	for _, t := range []jfrjson.FrameType{jfrjson.Interpreted, jfrjson.JITCompiled, jfrjson.Inlined, jfrjson.Native} {
		parts = append(parts, fmt.Sprintf("%d %s", n[t], t))
	}
	return strings.Join(parts, ", ")
}
