package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/profsim/profsim/internal/flagerr"
	"github.com/profsim/profsim/internal/nearest"
)

// joinBoolValues turns "--name true" and "--name false" into
// "--name=true" and "--name=false" for fs's boolean flags. Go's flag
// package takes a boolean flag's value only after "=", and reads the
// next word as a positional argument; commands that take no positional
// arguments (run) accept the spaced form instead of rejecting "false" as
// an unexpected argument.
func joinBoolValues(fs *flag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name := strings.TrimLeft(a, "-")
		if len(a)-len(name) < 1 || len(a)-len(name) > 2 || strings.Contains(name, "=") || i+1 == len(args) {
			out = append(out, a)
			continue
		}
		if v := args[i+1]; isBoolFlag(fs, name) && (v == "true" || v == "false") {
			out = append(out, a+"="+v)
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

func isBoolFlag(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// explainFlagError rewrites the flag package's "parse error": a duration
// flag given a bare number needs a unit, one beyond the model's time is
// too long, and an integer flag says which integers it takes.
func explainFlagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		name = strings.TrimPrefix(name, "-")
		if hint, ok := foreignFlags[name]; ok {
			return fmt.Errorf("%v (%s)", err, hint)
		}
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := nearest.Name(name, names); s != "" {
			return fmt.Errorf("%v; did you mean --%s?", err, s)
		}
		return err
	}
	return flagerr.Explain(fs, err)
}

// foreignFlags are async-profiler's and JFR's options as their users type
// them, with profsim's spelling.
var foreignFlags = map[string]string{
	"e":        "async-profiler's -e EVENT is --sampler async,engine=cpu|ctimer|itimer|wall",
	"event":    "async-profiler's event is --sampler async,engine=cpu|ctimer|itimer|wall",
	"i":        "async-profiler's -i INTERVAL is --sampler async,interval=1ms",
	"interval": "a sampler's interval is a key: --sampler async,interval=1ms",
	"d":        "async-profiler's -d SECONDS is --duration 5s",
	"period":   "JFR's period is a key: --sampler jfr,period=10ms",
	"throttle": "JFR's throttle is a key: --sampler jfr-cputime,throttle=10ms",
}
