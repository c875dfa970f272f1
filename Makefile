# profsim — the commands a newcomer needs. Everything runs with a plain Go
# toolchain; nothing else is installed.
GO ?= go

.PHONY: demo test bench lint fuzz build

## demo: the safepoint-bias demo (four profilers watch one execution each of two paper programs), then timer aliasing, then the first run as an HTML report
demo:
	@echo "== Mytkowicz et al. Listing 1 (hotcold): a JVM of the paper's era (--vm hotspot6), inlining off, as the paper ran tprof =="
	$(GO) run ./cmd/profsim run --workload hotcold --vm hotspot6 --samplers truth,safepoint,tprof,async --inline=false --out out/demo/hotcold
	@echo
	@echo "The safepoint sampler blames HotCold.cold: hot() has no poll of its own, so every sample waits for hot()'s return poll (which runs in the caller) or cold()'s back-edge."
	@echo "tprof and async interrupt the thread where it really is and find HotCold.hot within a few points of the truth."
	@echo
	@echo "== Arnold & Grove Fig. 1 (callpair): Jikes RVM-like yield points (--vm jikes), no inlining =="
	$(GO) run ./cmd/profsim run --workload callpair --vm jikes --samplers truth,safepoint,tprof,async --inline=false --out out/demo/callpair
	@echo
	@echo "A yield-point sampler takes nearly every sample at call_1's prologue, the first yield point after M's long loop body, so call_1 looks hot and call_2 idle although both do the same tiny work."
	@echo "async interrupts the thread where it is and agrees with the truth: M's body, call_1 and call_2 alike. tprof does too, apart from the samples it takes"
	@echo "before M is compiled, which it can only charge to <interpreted> (it maps code addresses to methods, as the paper's prototype did)."
	@echo
	@echo "== Timer aliasing (workloads/aliasing.yaml): a 1 ms frame loop, today's HotSpot (--vm hotspot17) with -XX:+DebugNonSafepoints, as profiling guides advise; JFR on a perfect clock (jfr:grid, jitter=0) and at its measured jitter =="
	$(GO) run ./cmd/profsim run --workload workloads/aliasing.yaml --vm hotspot17 --debug-non-safepoints --duration 5s --samplers truth --sampler jfr:grid,jitter=0 --sampler jfr --sampler async --out out/demo/aliasing
	@echo "(without --debug-non-safepoints Frame.input's compiled loop has no debug record: JFR drops the samples that land there — the undecipherable row)"
	@echo
	@echo "On a perfect 20 ms clock (jfr:grid) every tick lands at the same instant of a 1 ms frame: Frame.input gets 96 % of the samples against 12 % of the time."
	@echo "JFR's real sampler thread oversleeps by 375 µs a round (measured), so its ticks drift through the frame and it lands within a few points of the truth; async's hrtimer, 10 µs late on its grid, still aliases (over 90 %)."
	@echo
	@echo "== The first run (hotcold) as one page: the table, why each sample landed where it did (bias matrices), flame graphs and a timeline =="
	$(GO) run ./cmd/profsim report --workload hotcold --vm hotspot6 --samplers truth,safepoint,tprof,async --inline=false --html out/demo/report.html
	@echo
	@echo "Open it: xdg-open out/demo/report.html"

## test: every test, vet included (what CI runs)
test:
	$(GO) vet ./...
	$(GO) test -timeout 20m ./...

## bench: executor throughput and allocations; each workload's simulated seconds per second and peak heap (BENCHSIM=60s for a long run)
BENCHSIM ?= 100ms
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./sim/
	$(GO) test -run '^$$' -bench BenchmarkWorkloads -benchtime 1x -timeout 0 ./harness/ -bench.sim $(BENCHSIM)

## lint: formatting, vet, staticcheck and deadcode -test (tools of go.mod: go tool staticcheck, go tool deadcode)
lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@out=$$($(GO) tool deadcode -test ./...); if [ -n "$$out" ]; then echo "dead code (unreachable from any main or test):"; echo "$$out"; exit 1; fi

## fuzz: a short run of every fuzz target, FUZZTIME each (make fuzz FUZZTIME=10m for a long one)
# FUZZMINIMIZE bounds the minimization of each new input (Go's default is
# 60 s), so a short run spends its time fuzzing. Go 1.26's coordinator may
# report its own -fuzztime deadline as "context deadline exceeded" with no
# failing input (golang/go#75804): that is not a failure of the target.
FUZZTIME ?= 30s
FUZZMINIMIZE ?= 5s
FUZZ_TARGETS = ./program:FuzzDecodeYAML ./program:FuzzDecodeJSON ./cmd/profsim:FuzzRunFlags \
	./harness:FuzzParseThenRun ./sweep:FuzzParse ./sweep:FuzzReadIndex ./profile:FuzzReadJSON ./classfile:FuzzParse ./jfrjson:FuzzRead \
	./importer:FuzzImport
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; echo "== $$fn ($$pkg)"; \
		out=$$($(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg 2>&1); st=$$?; \
		echo "$$out" | tail -n 3; \
		if [ $$st -ne 0 ]; then \
			if echo "$$out" | grep -q 'Failing input written' || ! echo "$$out" | tail -n 5 | grep -q 'context deadline exceeded'; then exit 1; fi; \
			echo "   (go1.26 fuzz coordinator's deadline report, golang/go#75804: no failing input; not a failure)"; \
		fi; \
	done

## build: the profsim binary, for scripting (go run costs ~0.3 s per call)
build:
	$(GO) build -o profsim ./cmd/profsim
