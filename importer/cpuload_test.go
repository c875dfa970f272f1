package importer

import (
	"bytes"
	"os"
	"testing"

	"github.com/profsim/profsim/classfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The recording's jdk.ThreadCPULoad events give each thread's mean CPU
// use, and jdk.CPUInformation the hardware threads that make it a share
// of one CPU; the recorder's threads are left out as their samples are.
func TestCPULoadReport(t *testing.T) {
	rec, err := os.ReadFile("testdata/hotcold/hotcold.json")
	require.NoError(t, err)
	// A second document (jfrjson reads them in turn) with the events: main
	// busy on 0.45 and 0.35 of a two-CPU machine, the recorder's thread.
	extra := `{"recording": {"events": [
	{"type": "jdk.CPUInformation", "values": {"hwThreads": 2, "cores": 1, "sockets": 1}},
	{"type": "jdk.ThreadCPULoad", "values": {"startTime": "2026-11-23T15:56:46Z", "eventThread": {"javaName": "main", "javaThreadId": 1}, "user": 0.3, "system": 0.15}},
	{"type": "jdk.ThreadCPULoad", "values": {"startTime": "2026-11-23T15:56:46Z", "eventThread": {"javaName": "JFR Periodic Tasks", "javaThreadId": 20}, "user": 0.01, "system": 0}},
	{"type": "jdk.ThreadCPULoad", "values": {"startTime": "2026-11-23T15:56:47Z", "eventThread": {"javaName": "main", "javaThreadId": 1}, "user": 0.25, "system": 0.1}}]}}`
	cp, err := classfile.OpenClasspath("testdata/hotcold")
	require.NoError(t, err)
	defer cp.Close()
	m, err := Import(bytes.NewReader(append(rec, extra...)), cp, Options{})
	require.NoError(t, err)
	r := m.Report
	assert.Equal(t, int64(2), r.HWThreads)
	require.Len(t, r.CPULoad, 1, "the recorder's thread is left out")
	l := r.CPULoad[0]
	assert.Equal(t, "main", l.Thread)
	assert.Equal(t, 2, l.Events)
	assert.InDelta(t, 0.4, l.Load, 1e-12, "the mean of 0.45 and 0.35")
	assert.InDelta(t, 0.8, l.OnCPU(r.HWThreads), 1e-12, "on a CPU 80 % of the time on two hardware threads")
	assert.Zero(t, l.OnCPU(0), "unknown without jdk.CPUInformation")
	assert.Equal(t, 1.0, ThreadCPULoad{Load: 0.7}.OnCPU(2), "at most the whole time")

	plain := importHotCold(t, Options{})
	assert.Empty(t, plain.Report.CPULoad)
	assert.Zero(t, plain.Report.HWThreads)
}
