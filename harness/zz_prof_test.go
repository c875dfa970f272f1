package harness

import (
	"os"
	"runtime/pprof"
	"testing"
	"time"
)

func TestZZProfileFop(t *testing.T) {
	if os.Getenv("ZZPROF") == "" {
		t.Skip()
	}
	s := DefaultSpec()
	s.Workload = os.Getenv("ZZPROF")
	s.Duration = 10 * time.Second
	s.LoopScale = 3
	p, _, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create("/tmp/fopprof/cpu.pprof")
	pprof.StartCPUProfile(f)
	t0 := time.Now()
	_, err = Run(p, cfg)
	pprof.StopCPUProfile()
	t.Log(time.Since(t0), err)
}
