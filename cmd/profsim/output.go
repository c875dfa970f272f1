package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// outputs writes a command's files all or nothing. Each file is written
// to a temporary name in its directory and closed; commit then renames
// every one into place. abort removes what this command created: the
// temporary files, and the directories it made if they are empty. A
// reader never sees a partial file, and a failed or interrupted command
// leaves nothing behind.
type outputs struct {
	ctx context.Context
	// flag names the option the files come from, for messages ("--out").
	flag string
	// made are the directories this command created, outermost first.
	made    []string
	pending []pendingFile
	// renamed are files already moved into place by a commit that then
	// failed: they are removed too.
	renamed []string
}

type pendingFile struct{ tmp, path string }

func newOutputs(ctx context.Context, flag string) *outputs {
	return &outputs{ctx: ctx, flag: flag}
}

// dir makes dir (and its parents) unless it exists, and checks that it is
// a directory files can be created in: bad input (exit status 2) if not.
func (o *outputs) dir(dir string) error {
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return usagef("%s %s: exists and is not a directory", o.flag, dir)
		}
	} else if errors.Is(err, os.ErrNotExist) {
		// Remember the directories MkdirAll is about to create.
		var missing []string
		for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
			if _, err := os.Lstat(d); err == nil {
				break
			}
			missing = append([]string{d}, missing...)
			if filepath.Dir(d) == d {
				break
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usagef("%s %s: %v", o.flag, dir, bare(err))
		}
		o.made = append(o.made, missing...)
	} else {
		return usagef("%s %s: %v", o.flag, dir, bare(err))
	}
	probe, err := os.CreateTemp(dir, ".profsim-probe-*")
	if err != nil {
		return usagef("%s %s: cannot create files there: %v", o.flag, dir, bare(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// write writes path's content, produced by fn, to a temporary file next
// to it; commit moves it into place. Writing stops with the context's
// error once the context is done.
func (o *outputs) write(path string, fn func(io.Writer) error) error {
	if err := o.ctx.Err(); err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return usagef("%s: %s exists and is not a regular file", o.flag, path)
	}
	fh, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return usagef("%s: %v", o.flag, bare(err))
	}
	o.pending = append(o.pending, pendingFile{fh.Name(), path})
	bw := bufio.NewWriter(ctxWriter{o.ctx, fh})
	err = fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = fh.Chmod(0o644) // CreateTemp's is 0600
	}
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if ctxErr := o.ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return fmt.Errorf("writing %s: %w", path, bare(err))
	}
	if afterWrite != nil {
		afterWrite(path)
	}
	return nil
}

// afterWrite, if set, is called after each file is written (tests).
var afterWrite func(path string)

// adopt takes tmp, a file the command wrote itself, as path's content:
// commit moves it into place.
func (o *outputs) adopt(tmp, path string) error {
	o.pending = append(o.pending, pendingFile{tmp, path})
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return usagef("%s: %s exists and is not a regular file", o.flag, path)
	}
	return nil
}

// commit moves every written file into place. If a rename fails, the
// files already moved are removed with the rest.
func (o *outputs) commit() error {
	if err := o.ctx.Err(); err != nil {
		return err
	}
	for len(o.pending) > 0 {
		p := o.pending[0]
		if err := os.Rename(p.tmp, p.path); err != nil {
			return fmt.Errorf("writing %s: %w", p.path, bare(err))
		}
		o.pending = o.pending[1:]
		o.renamed = append(o.renamed, p.path)
	}
	o.renamed, o.made = nil, nil
	return nil
}

// abort removes what the command created and has not committed.
func (o *outputs) abort() {
	for _, p := range o.pending {
		os.Remove(p.tmp)
	}
	for _, p := range o.renamed {
		os.Remove(p)
	}
	for i := len(o.made) - 1; i >= 0; i-- {
		os.Remove(o.made[i]) // only if empty: never what someone else put there
	}
	o.pending, o.renamed, o.made = nil, nil, nil
}

// ctxWriter fails every write once its context is done, so that an
// interrupted command stops writing a large file at once.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(b)
}

// bare is err without the path an *fs.PathError repeats.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
