package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/profsim/profsim/harness"
	"github.com/profsim/profsim/samplers"
)

// traceFile is the --trace file being written: a temporary file next to
// its path, moved into place with the run's other files.
type traceFile struct {
	fh    *os.File
	files *outputs
}

// startTrace sets cfg.Trace when --trace or --why asks for it, and opens
// the --trace file before the run, so that a bad path fails at once.
func startTrace(ctx context.Context, cfg *harness.Config, f *runFlags) (*traceFile, error) {
	if f.trace == "" {
		if f.why {
			cfg.Trace = samplers.NewTrace(nil)
		}
		return nil, nil
	}
	files := newOutputs(ctx, "--trace")
	dir := filepath.Dir(f.trace)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, usagef("--trace %s: directory %s does not exist", f.trace, dir)
	}
	fh, err := os.CreateTemp(dir, "."+filepath.Base(f.trace)+".tmp-*")
	if err != nil {
		return nil, usagef("--trace %s: %v", f.trace, bare(err))
	}
	if err := files.adopt(fh.Name(), f.trace); err != nil {
		fh.Close()
		files.abort()
		return nil, err
	}
	cfg.Trace = samplers.NewTrace(ctxWriter{ctx, fh})
	return &traceFile{fh: fh, files: files}, nil
}

// close flushes the trace and closes its file.
func (t *traceFile) close(tr *samplers.Trace) error {
	err := tr.Close()
	if err == nil {
		err = t.fh.Chmod(0o644)
	}
	if err == nil {
		err = t.fh.Sync()
	}
	if cerr := t.fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", t.files.pending[0].path, bare(err))
	}
	return nil
}
