package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/sweep"
)

// progressLinePeriod is how often a sweep whose stderr is not a terminal
// (CI, a Slurm log) prints a plain progress line.
const progressLinePeriod = 10 * time.Second

// progress shows a sweep's progress on stderr: a live bar (mpb) on a
// terminal, else a plain line every progressLinePeriod and at the end.
type progress struct {
	w      io.Writer
	total  int
	last   time.Time
	state  sweep.Progress
	bar    *mpb.Bar
	p      *mpb.Progress
	failed atomic.Int64
}

func newProgress(stderr io.Writer, total int) *progress {
	pg := &progress{w: stderr, total: total, last: time.Now(), state: sweep.Progress{Total: total}}
	if total == 0 || !isTerminal(stderr) {
		return pg
	}
	pg.p = mpb.New(mpb.WithOutput(stderr), mpb.WithWidth(40), mpb.WithRefreshRate(200*time.Millisecond))
	pg.bar = pg.p.AddBar(int64(total),
		mpb.PrependDecorators(decor.Name("sweep "), decor.CountersNoUnit("%d/%d runs")),
		mpb.AppendDecorators(
			decor.Any(func(decor.Statistics) string {
				if n := pg.failed.Load(); n > 0 {
					return fmt.Sprintf("%d failed  ", n)
				}
				return ""
			}),
			decor.Elapsed(decor.ET_STYLE_GO),
			decor.Name("  ETA "),
			decor.AverageETA(decor.ET_STYLE_GO),
		))
	return pg
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (pg *progress) update(s sweep.Progress) {
	pg.state = s
	if pg.bar != nil {
		pg.failed.Store(int64(s.Failed))
		pg.bar.Increment()
		return
	}
	if time.Since(pg.last) >= progressLinePeriod {
		pg.last = time.Now()
		fmt.Fprintln(pg.w, "profsim sweep: "+s.Line())
	}
}

// finish ends the display: the bar completes (or is left where it
// stopped), the plain form prints a last line.
func (pg *progress) finish() {
	if pg.bar != nil {
		if !pg.bar.Completed() { // interrupted, or stopped by an error
			pg.bar.Abort(false)
		}
		pg.p.Wait()
		return
	}
	if pg.total > 0 {
		fmt.Fprintln(pg.w, "profsim sweep: "+pg.state.Line())
	}
}

// runTickerPeriod is how often profsim run's bar reads how far the run
// has got.
const runTickerPeriod = 200 * time.Millisecond

// runTicker shows a run's progress on a terminal: a bar of simulated time
// with the time elapsed and the time left (mpb, as the sweep's bar);
// elsewhere nothing, so logs and pipes get the same bytes as without it.
// The bar is moved by a goroutine that reads sim.VM.Reached while the run
// goes on in one call, as without the bar: a run stopped at a limit and
// continued is the same run only on one CPU (docs/MODEL.md), so
// the run is never divided for the display.
type runTicker struct {
	p    *mpb.Progress
	bar  *mpb.Bar
	done chan struct{}
	left chan struct{}
}

func newRunTicker(stderr io.Writer, workload string, rig *harness.Rig, duration sim.Time) *runTicker {
	if !isTerminal(stderr) || duration <= 0 {
		return &runTicker{}
	}
	t := &runTicker{done: make(chan struct{}), left: make(chan struct{})}
	t.p = mpb.New(mpb.WithOutput(stderr), mpb.WithWidth(30), mpb.WithRefreshRate(runTickerPeriod))
	t.bar = t.p.New(int64(duration), mpb.BarStyle(),
		mpb.PrependDecorators(decor.Name("run "+workload+" "), decor.Any(func(s decor.Statistics) string {
			return fmt.Sprintf("%v of %v simulated ", time.Duration(s.Current).Round(10*time.Millisecond), sim.Time(s.Total))
		})),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO), decor.Name("  ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
	vm := rig.VM()
	go func() {
		defer close(t.left)
		tick := time.NewTicker(runTickerPeriod)
		defer tick.Stop()
		for {
			select {
			case <-t.done:
				return
			case <-tick.C:
				t.bar.SetCurrent(int64(vm.Reached()))
			}
		}
	}()
	return t
}

// stop removes the bar; the report on stdout follows.
func (t *runTicker) stop() {
	if t.bar == nil {
		return
	}
	close(t.done)
	<-t.left
	t.bar.Abort(true)
	t.p.Wait()
}
