# profsim — the commands a newcomer needs. Everything runs with a plain Go
# toolchain; nothing else is installed.
GO ?= go

.PHONY: demo test bench lint fuzz build

## demo: run the hot/cold program and show its exact ground-truth profile
demo:
	$(GO) run ./cmd/profsim run --workload hotcold --duration 2s --out out/demo

## test: every test, vet included (what CI runs)
test:
	$(GO) vet ./...
	$(GO) test ./...

## bench: executor throughput and allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./sim/

## lint: formatting and vet
lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## fuzz: a short run of every fuzz target
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./program/
	$(GO) test -run '^$$' -fuzz FuzzReadJSON -fuzztime 30s ./profile/

build:
	$(GO) build ./...
