package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/profsim/profsim/internal/nearest"
	"github.com/profsim/profsim/study"
	"github.com/profsim/profsim/sweep"
)

func cmdStudy(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		for _, e := range study.Experiments() {
			fmt.Fprintf(stdout, "%-20s %-3s %s\n", e.Name, e.Claim, e.Title)
		}
		return nil
	}
	name := args[0]
	e, ok := study.Lookup(name)
	if !ok {
		if name == "-h" || name == "--help" || name == "-help" {
			fmt.Fprintln(stdout, "Usage: profsim study [NAME [--out DIR] [--seeds N] [--size test|full|paper] [--models] [--store DIR [--shard I/N|auto] | --from DIR]]")
			fmt.Fprintln(stdout, "\nRuns one paper reproduction and writes NAME.csv, NAME.md, NAME.data.csv (tidy data, where the experiment has it), NAME.svg and NAME.png (the figure with its caption, 2000 px wide for slides); 'profsim study NAME --help' for its flags.\nThe claim tests: go test ./study -run TestM1 -v (see REPRODUCTIONS.md).\n\nExperiments:")
			for _, e := range study.Experiments() {
				fmt.Fprintf(stdout, "  %-20s %-3s %s\n", e.Name, e.Claim, e.Title)
			}
			return errHelp
		}
		var names []string
		for _, e := range study.Experiments() {
			names = append(names, e.Name)
		}
		if s := nearest.Name(name, names); s != "" {
			return usagef("study: unknown experiment %q; did you mean %q? (see 'profsim study')", name, s)
		}
		return usagef("study: unknown experiment %q (see 'profsim study')", name)
	}
	fs := flag.NewFlagSet("study", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "out/study", "directory for NAME.csv, NAME.md, NAME.data.csv (the tidy data), NAME.svg and NAME.png (the figure), where the experiment has them, each written whole or not at all")
	seeds := fs.Int("seeds", 3, "seeds per configuration (1, 2, …)")
	full := fs.Bool("full", false, "the paper-sized version, more stand-ins and longer runs (slow): the same as --size full")
	size := fs.String("size", "test", "the experiment's size: test (the claim tests' runs), full (more stand-ins, longer runs; slow) or paper (the paper's run length on the default stand-ins, for the experiments run length limits: "+strings.Join(paperExperiments(), ", ")+"; minutes)")
	storeDir := fs.String("store", "", "keep the runs in DIR (a study store): runs it holds are read, not made again, so a study resumes; several processes, e.g. --shard, may share it")
	shardText := fs.String("shard", "", "with --store: make only shard I/N of the runs (by key), or auto: from SLURM_ARRAY_TASK_ID/COUNT or JOB_COMPLETION_INDEX (docs/SWEEPS.md)")
	shardCount := fs.Int("shard-count", 0, "with --shard auto: the number of shards")
	from := fs.String("from", "", "render from the runs in the study store DIR alone, making none")
	models := fs.Bool("models", false, "run on the models of the DaCapo-2006 applications (workloads/models) instead of the synthetic stand-ins (experiments "+strings.Join(modelExperiments(), ", ")+")")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "Usage: profsim study NAME [--out DIR] [--seeds N] [--size test|full|paper] [--models] [--store DIR [--shard I/N|auto] | --from DIR]")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return errHelp
		}
		return usagef("study: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("study: unexpected argument %q", fs.Arg(0))
	}
	if *seeds < 1 {
		return usagef("study: --seeds %d must be ≥ 1", *seeds)
	}
	if *models && !e.Models {
		return usagef("study: --models: %s has no version on the models (those with one: %s)", name, strings.Join(modelExperiments(), ", "))
	}
	o, err := studySize(e, *size, *full)
	if err != nil {
		return err
	}
	switch {
	case *from != "" && (*storeDir != "" || *shardText != ""):
		return usagef("study: --from reads a store and makes no run; it does not combine with --store or --shard")
	case *shardCount != 0 && (*shardCount < 0 || *shardText != "auto"):
		return usagef("study: --shard-count %d: want a count ≥ 1, with --shard auto", *shardCount)
	case *shardText != "" && *storeDir == "":
		return usagef("study: --shard needs --store DIR, where the shards' runs meet")
	case *storeDir != "":
		if o.Store, err = study.OpenStore(*storeDir); err != nil {
			return usagef("study: --store: %v", err)
		}
		if *shardText != "" {
			shard, err := sweep.ParseShard(*shardText, *shardCount, os.Getenv)
			if err != nil {
				return usagef("study: %v", err)
			}
			o.Store.SetShard(shard)
		}
	case *from != "":
		if o.Store, err = study.OpenStoreReadOnly(*from); err != nil {
			return usagef("study: --from: %v", err)
		}
	}
	o.Models = *models
	for s := 1; s <= *seeds; s++ {
		o.Seeds = append(o.Seeds, uint64(s))
	}
	ctx, sig, stop := signalContext()
	defer stop()
	files := newOutputs(ctx, "--out")
	// Before the study, which may take minutes: a bad --out fails at once.
	if err := files.dir(*out); err != nil {
		return err
	}
	// The experiment cannot be stopped half-way; a signal during it
	// removes what the command made and exits at once.
	var mu sync.Mutex
	computing := true
	go func() {
		<-ctx.Done()
		mu.Lock()
		defer mu.Unlock()
		if s := sig(); computing && s != nil {
			files.abort()
			code := exitStatus(interrupted(s, "study %s interrupted (%s); nothing written", name, signalName(s)), stderr)
			os.Exit(code)
		}
	}()
	start := time.Now()
	tick := newStudyTicker(stderr, name)
	o.Runs = tick.counter()
	r, err := e.Run(o)
	tick.stop()
	mu.Lock()
	computing = false
	mu.Unlock()
	if o.Store != nil {
		made, read, missing := o.Store.Counts()
		fmt.Fprintf(stderr, "study %s: %d runs made, %d read from the store, %d missing\n", name, made, read, missing)
	}
	if err != nil {
		files.abort()
		switch {
		case errors.Is(err, study.ErrIncomplete) && *from != "":
			return fmt.Errorf("study %s --from %s: runs missing: make them with --store %[2]s (and the same --seeds, --size and --models), or its shards", name, *from)
		case errors.Is(err, study.ErrIncomplete):
			fmt.Fprintf(stderr, "study %s: the other shards' runs are not all in %s yet; when every shard has finished, --from %[2]s renders the results (if it finds runs missing, this experiment plans runs from earlier ones: run the shards again)\n", name, *storeDir)
			return nil
		case errors.Is(err, study.ErrOptions):
			return usagef("study: %s", strings.TrimPrefix(err.Error(), study.ErrOptions.Error()+": "))
		}
		return err
	}
	written, err := writeStudy(files, r, *out, name)
	if err != nil {
		files.abort()
		if ctx.Err() != nil {
			return interrupted(sig(), "study %s interrupted (%s); nothing written", name, signalName(sig()))
		}
		return fmt.Errorf("study %s: writing results: %w", name, err)
	}
	fmt.Fprint(stdout, r.Table.Markdown())
	fmt.Fprintf(stdout, "\nwrote %s in %s (%v)\n", listAnd(written), *out, time.Since(start).Round(time.Millisecond))
	return nil
}

// studySize turns --size (and --full, its shorthand for full) into the
// Options' size: a usage error names the flag for a value other than
// test, full or paper, for --full with another size, and for paper on an
// experiment that run length does not limit.
func studySize(e study.Experiment, size string, full bool) (study.Options, error) {
	if full {
		if size != "test" && size != "full" {
			return study.Options{}, usagef("study: --full is --size full; it does not combine with --size %s", size)
		}
		size = "full"
	}
	switch size {
	case "test":
		return study.Options{}, nil
	case "full":
		return study.Options{Full: true}, nil
	case "paper":
		if e.Paper == "" {
			return study.Options{}, usagef("study %s: --size paper: run length does not limit this experiment; the experiments with a paper-length version are %s", e.Name, strings.Join(paperExperiments(), ", "))
		}
		return study.Options{Paper: true}, nil
	}
	return study.Options{}, usagef("study: --size %q: want test, full or paper", size)
}

// paperExperiments names the experiments with a paper-length version.
func paperExperiments() []string {
	var out []string
	for _, e := range study.Experiments() {
		if e.Paper != "" {
			out = append(out, e.Name)
		}
	}
	return out
}

// studyTicker shows a study's progress: on a terminal, a bar with the
// experiment's name, its runs done of those asked for so far and the
// time elapsed (mpb, as the sweep's bar); elsewhere nothing, so logs and
// pipes get the same bytes as without it. An experiment asks for its runs
// in batches (a grid, then the runs that depend on it), so the total can
// grow; runs found in the cache count as done at once.
type studyTicker struct {
	p   *mpb.Progress
	bar *mpb.Bar
}

func newStudyTicker(stderr io.Writer, name string) *studyTicker {
	if !isTerminal(stderr) {
		return &studyTicker{}
	}
	p := mpb.New(mpb.WithOutput(stderr), mpb.WithWidth(30), mpb.WithRefreshRate(200*time.Millisecond))
	bar := p.New(0, mpb.BarStyle(),
		mpb.PrependDecorators(decor.Name("study "+name+" "), decor.CountersNoUnit("%d/%d runs ")),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO)))
	return &studyTicker{p: p, bar: bar}
}

// counter is the study.Counter that moves the bar (nil off a terminal).
func (t *studyTicker) counter() *study.Counter {
	if t.bar == nil {
		return nil
	}
	return &study.Counter{OnChange: func(done, total int) {
		t.bar.SetTotal(int64(total), false)
		t.bar.SetCurrent(int64(done))
	}}
}

// stop removes the bar; the table and the "wrote … (time)" line on stdout
// follow.
func (t *studyTicker) stop() {
	if t.bar == nil {
		return
	}
	t.bar.Abort(true)
	t.p.Wait()
}

// writeStudy writes r's files (study.Result.Write: NAME.csv, NAME.md and,
// where the experiment has them, NAME.data.csv, NAME.svg and NAME.png) into a temporary directory in
// dir, then moves them into place together. It returns the names of the
// files written.
func writeStudy(files *outputs, r *study.Result, dir, name string) ([]string, error) {
	tmp, err := os.MkdirTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // ours alone; empty once the files are moved
	if err := r.Write(tmp, name); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil, err
	}
	var written []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if err := files.adopt(filepath.Join(tmp, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return nil, err
		}
		written = append(written, e.Name())
	}
	if len(written) == 0 {
		return nil, fmt.Errorf("the study wrote no file")
	}
	return written, files.commit()
}

// listAnd joins names as "a, b and c".
func listAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// modelExperiments lists the experiments that run on the models of real
// applications too (study.Experiment.Models).
func modelExperiments() []string {
	var out []string
	for _, e := range study.Experiments() {
		if e.Models {
			out = append(out, e.Name)
		}
	}
	return out
}
