package jit

import (
	"testing"

	"github.com/profsim/profsim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// InsertProbes puts one probe at the entry and one before each return;
// a jump to a return reaches its probe, and the probes count as code
// the inliner sees.
func TestInsertProbes(t *testing.T) {
	c := &sim.Code{Instrs: []sim.Instr{
		{Op: sim.OpWork, Line: 1, Bytecodes: 4, Cycles: 4},
		sim.NewBranch(2, 0.5, 3), // to the return
		{Op: sim.OpReturn, Line: 3},
		{Op: sim.OpReturn, Line: 4},
	}}
	p, err := InsertProbes(c, Probes{Cycles: 7, Bytes: 6})
	require.NoError(t, err)
	ops := []sim.Op{}
	for _, x := range p.Instrs {
		ops = append(ops, x.Op)
	}
	assert.Equal(t, []sim.Op{sim.OpCount, sim.OpWork, sim.OpBranch, sim.OpCount, sim.OpReturn, sim.OpCount, sim.OpReturn}, ops)
	assert.Equal(t, int32(5), p.Instrs[2].BranchElse(), "the branch reaches the second return's probe")
	assert.True(t, p.Instrumented)
	assert.Equal(t, MethodSize(c)+3*6, MethodSize(p))
	probe, entry := IsProbe(p, 0)
	assert.True(t, probe && entry)
	probe, entry = IsProbe(p, 5)
	assert.True(t, probe && !entry)
	probe, _ = IsProbe(p, 1)
	assert.False(t, probe)

	c.Instrs[1] = sim.NewBranch(2, 0.5, 0)
	_, err = InsertProbes(c, Probes{})
	assert.ErrorContains(t, err, "entry probe again")
	assert.ErrorContains(t, Probes{Cycles: -1}.Validate(), "probes: cycles -1")
}
