package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/profsim/profsim/program"
	"github.com/profsim/profsim/workloads"
)

// TestProgramHashIsOfTheJSON: programHash, which hashes a method at a
// time, is the SHA-256 of the program's whole canonical JSON, for every
// built-in workload and for names that look like the methods key.
func TestProgramHashIsOfTheJSON(t *testing.T) {
	var progs []*program.Program
	for _, name := range append(workloads.Names(), workloads.Models()...) {
		p, err := workloads.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, p)
	}
	odd := *progs[0]
	odd.Name = `x","methods":[],"y":"`
	odd.Description = `"methods":[]`
	one := *progs[0]
	one.Methods = one.Methods[:1]
	none := *progs[0]
	none.Methods = nil
	progs = append(progs, &odd, &one, &none)
	for _, p := range progs {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got, want := programHash(p), hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: programHash %s, SHA-256 of its JSON %s", p.Name, got, want)
		}
	}
}
