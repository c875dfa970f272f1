// Command jfrtrim cuts the JSON of `jfr print --json` down to what
// `profsim import` reads, optionally to a window of execution samples, so
// that a recording can be checked into testdata.
//
//	jfrtrim [--skip 500ms] [--samples 300] < full.json > small.json
//
// It keeps the execution samples from --skip after the first one on, at
// most --samples of them (0: all); the native method samples of the same
// window (from --skip to the last execution sample kept); the compilations and inlining decisions
// of the methods those samples show; the thread starts; and the
// recording's extent. The output has the JDK's shape with only the fields
// jfrjson reads (jfrjson.Writer).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/profsim/profsim/jfrjson"
)

func main() {
	skip := flag.Duration("skip", 0, "drop the samples of this long after the first one")
	samples := flag.Int("samples", 0, "keep at most this many samples (0: all)")
	flag.Parse()
	if err := run(*skip, *samples); err != nil {
		fmt.Fprintln(os.Stderr, "jfrtrim:", err)
		os.Exit(1)
	}
}

func run(skip time.Duration, max int) error {
	var kept, native, other []*jfrjson.Event
	var first time.Time
	methods := map[jfrjson.Method]bool{}
	err := jfrjson.Read(os.Stdin, func(e *jfrjson.Event) error {
		switch {
		case e.Sample != nil:
			if first.IsZero() || e.Sample.Time.Before(first) {
				first = e.Sample.Time // the JDK prints events per chunk, roughly in time order
			}
			kept = append(kept, e)
		case e.NativeSample != nil:
			native = append(native, e)
		case e.Type != "":
			other = append(other, e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	w := jfrjson.NewWriter(os.Stdout)
	n := 0
	var last time.Time
	for _, e := range kept {
		if e.Sample.Time.Sub(first) < skip || (max > 0 && n >= max) {
			continue
		}
		n++
		if e.Sample.Time.After(last) {
			last = e.Sample.Time
		}
		for _, f := range e.Sample.Frames {
			methods[f.Method] = true
		}
		if err := w.Write(e); err != nil {
			return err
		}
	}
	for _, e := range native {
		if t := e.NativeSample.Time; t.Sub(first) < skip || t.After(last) {
			continue
		}
		for _, f := range e.NativeSample.Frames {
			methods[f.Method] = true
		}
		if err := w.Write(e); err != nil {
			return err
		}
	}
	for _, e := range other {
		switch {
		case e.Compilation != nil && !methods[e.Compilation.Method]:
			continue
		case e.Inlining != nil && !methods[e.Inlining.Caller]:
			continue
		}
		if err := w.Write(e); err != nil {
			return err
		}
	}
	return w.Close()
}
