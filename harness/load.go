package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/profsim/profsim/internal/filekind"
	"github.com/profsim/profsim/internal/nearest"
	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/sim"
	"github.com/profsim/profsim/workloads"
)

// InputError is a workload that cannot be read as named: an unknown name,
// a file that is missing, not a regular file or over a limit, or not a
// valid program. It is the user's to fix; a built-in that fails to load
// is not one.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// LoadWorkload resolves a built-in name first, then a file path, read if
// it is a regular file of at most maxInput bytes. Only a regular file is
// read (a symbolic link to one is): a FIFO would block and a device may
// never end.
func LoadWorkload(ref string, maxInput int64) (*program.Program, error) {
	if workloads.IsBuiltin(ref) {
		return workloads.Get(ref) // a broken built-in is our bug, not the user's
	}
	st, err := os.Stat(ref)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if s := nearest.Name(ref, slices.Concat(workloads.Names(), workloads.Models(), workloads.Twins(), workloads.Experiments())); s != "" {
				return nil, inputErrorf("unknown workload %q: did you mean %q? (not a built-in nor a file; 'profsim workloads' lists the built-ins)", ref, s)
			}
			return nil, inputErrorf("unknown workload %q: not a built-in (%s, or a stand-in from 'profsim workloads') and no such file", ref, strings.Join(workloads.Programs(), ", "))
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, inputErrorf("workload %s: %v", ref, err)
	}
	if !st.Mode().IsRegular() {
		return nil, inputErrorf("workload %s: not a regular file (%s); profsim reads workloads from regular files only", ref, filekind.Of(st.Mode()))
	}
	if st.Size() > maxInput {
		return nil, inputErrorf("workload %s: %s is over the input limit of %s (raise it with --max-input-size SIZE)", ref, sim.FormatBytes(st.Size()), sim.FormatBytes(maxInput))
	}
	p, err := program.Load(ref)
	if err != nil {
		return nil, &InputError{err}
	}
	return p, nil
}

// CheckWorkloadMemory refuses, before reading it, a workload file whose
// program would take more than maxMemory once read and built into the
// run (sim.WorkloadBytes estimates it from the file's size). A file that
// LoadWorkload refuses anyway (not a regular file, over the input limit
// maxInput) is left for it to report.
func CheckWorkloadMemory(ref string, maxInput, maxMemory int64) error {
	if workloads.IsBuiltin(ref) {
		return nil
	}
	st, err := os.Stat(ref)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxInput {
		return nil
	}
	if est := sim.WorkloadBytes(st.Size()); est > maxMemory {
		return inputErrorf("workload %s: its program would take an estimated %s of memory (%d bytes for each of the file's %s), over --max-memory %s (raise it with --max-memory SIZE)",
			ref, sim.FormatBytes(est), sim.WorkloadBytesPerByte, sim.FormatBytes(st.Size()), sim.FormatBytes(maxMemory))
	}
	return nil
}

// Load reads s's workload within its limits (CheckWorkloadMemory,
// LoadWorkload), generates it anew with Iterations, scales its entry
// loops by LoopScale and applies its interventions; hash is the workload's
// as read (ProgramHash), before all of them, as a sweep plans it: the
// Description records them beside it. What does not apply is an
// InputError.
func (s Spec) Load() (p *program.Program, hash string, err error) {
	if err := CheckWorkloadMemory(s.Workload, s.MaxInput, s.MaxMemory); err != nil {
		return nil, "", err
	}
	if p, err = LoadWorkload(s.Workload, s.MaxInput); err != nil {
		return nil, "", err
	}
	hash = ProgramHash(p)
	if s.Iterations > 0 {
		st, ok := workloads.LookupStandIn(s.Workload)
		if !ok {
			return nil, "", inputErrorf("--iterations: %s is not a generated stand-in ('profsim workloads' lists them)", s.Workload)
		}
		k := st.Knobs
		k.Iterations = s.Iterations
		if p, err = workloads.Generate(s.Workload, k, st.Seed); err != nil {
			return nil, "", &InputError{fmt.Errorf("--iterations %d: %w", s.Iterations, err)}
		}
	}
	if s.LoopScale > 0 {
		if _, err := workloads.ScaleEntryLoops(p, s.LoopScale); err != nil {
			return nil, "", &InputError{fmt.Errorf("--loop-scale %v: %w", s.LoopScale, err)}
		}
	}
	if err := s.Intervene(p); err != nil {
		return nil, "", &InputError{err}
	}
	return p, hash, nil
}
