package program

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// bigProgram is a workload of stmts statements (a multiple of 100) in
// methods of 100, as a generator writes one: a mix of work, calls,
// allocations and native code, 38 bytes a statement.
func bigProgram(stmts int) []byte {
	var b bytes.Buffer
	b.WriteString("name: big\nmethods:\n")
	methods := stmts / 100
	for i := 0; i < methods; i++ {
		fmt.Fprintf(&b, "  - class: C%d\n    name: m\n    body:\n", i)
		for s := 0; s < 100; s++ {
			switch k := (i*100 + s) * 7919 % 10; {
			case k < 6:
				fmt.Fprintf(&b, "      - work: {cycles: %d, bytecodes: %d}\n", 10+s*9, 1+s)
			case k < 8 && i+1 < methods:
				fmt.Fprintf(&b, "      - call: {method: C%d.m}\n", i+1+s%min(50, methods-i-1))
			case k < 9:
				fmt.Fprintf(&b, "      - alloc: {bytes: %d}\n", 8+s)
			default:
				fmt.Fprintf(&b, "      - native: {cycles: %d}\n", 10+s*5)
			}
		}
	}
	b.WriteString("threads:\n  - name: main\n    entry: C0.m\n")
	return b.Bytes()
}

// peakHeapEnv makes the test binary, run by TestDecodePeakHeap, measure
// in a fresh process the heap Parse needs for a program of that many
// statements, and print it.
const peakHeapEnv = "PROFSIM_PEAK_HEAP_STMTS"

// peakHeap is what a fresh process's heap grows to (MemStats.HeapSys,
// which never shrinks) while it parses data, with the collector kept
// close to the live heap (GOGC=10).
func peakHeap(data []byte, f Format) (uint64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := Parse(data, f)
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(p)
	return after.HeapSys - before.HeapSys, err
}

func TestMain(m *testing.M) {
	if s := os.Getenv(peakHeapEnv); s != "" {
		n, _ := strconv.Atoi(s)
		data := bigProgram(n)
		grew, err := peakHeap(data, YAML)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Printf("peak heap %d\n", grew)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// peakBytesPerStmt bounds the heap parsing a workload needs per
// statement, the file's bytes included. Measured on bigProgram(10⁵) (3.8
// MB, 38 bytes a statement): 1 425 bytes a statement when yaml.v3 held the
// whole document's tree, 83 reading a method at a time (the file, the
// program and one method's tree); the bound leaves room for the
// collector's pacing and fails at a quarter of the whole tree's cost.
const peakBytesPerStmt = 300

// TestDecodePeakHeap: parsing a workload of 10⁵ statements needs a heap
// within a few hundred bytes a statement, not the kilobytes a whole
// yaml.v3 tree costs.
func TestDecodePeakHeap(t *testing.T) {
	const stmts = 100_000
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), peakHeapEnv+"="+strconv.Itoa(stmts), "GOGC=10")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	s, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "peak heap ")
	if !ok {
		t.Fatalf("unexpected output %q", out)
	}
	grew, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	per := float64(grew) / stmts
	t.Logf("parsing %d statements grew the heap by %d bytes, %.0f a statement", stmts, grew, per)
	if per > peakBytesPerStmt {
		t.Errorf("parsing %d statements grew the heap by %.0f bytes a statement, over %d", stmts, per, peakBytesPerStmt)
	}
}
