# solgate — the commands a newcomer and CI run. `make help` lists them.
# go.mod names go 1.27.3, but a machine starts on its own Go and does not
# switch by itself; this makes the go command fetch and use 1.27.3 (the
# release whose standard library has no known reachable vulnerability here).
export GOTOOLCHAIN := go1.27.3
GO        ?= go
NPM       ?= npm
BIN       := bin/solgate
# Bounded by default so CI stays well inside its time limit; raise for longer runs.
FUZZTIME  ?= 10s
TESTFLAGS ?= -race -count=1 -timeout 20m

.PHONY: help build install test vet localnet-deps localnet-programs tsclient-deps demo prove fuzz bench clean

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

# -buildvcs=true records the checkout's revision in the binary, which
# `solgate --version` and MCP serverInfo report.
# -trimpath keeps the build machine's paths out of the binary, so an installed
# solgate refers to no checkout (SECURITY.md, "Releases and verifying them").
# CGO_ENABLED=0, as the release builds it: a static binary starts without the
# dynamic loader and libc, which took about 0.5 ms (3-4 %) and 50 page faults
# off a `solgate mcp` bridge's start-up, paid once per assistant. (The tests'
# -race needs cgo, so it is set here only.)
build: ## build bin/solgate
	CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=true -o $(BIN) ./cmd/solgate

# Archives, SHA256SUMS and a CycloneDX SBOM per archive in dist/, for linux and
# darwin on amd64 and arm64 (GoReleaser, --snapshot). Builds GoReleaser once per
# pin; kept out of `make test` and .ci/run for that reason.
.PHONY: release
release: ## snapshot release into dist/: archives, SHA256SUMS, SBOMs (builds GoReleaser once)
	.ci/release/run

# /usr/local/bin so that the console's own account and yours run the same
# binary (README, "Run it safely"); PREFIX=$$HOME/.local for yourself only.
PREFIX    ?= /usr/local
# Separate from build, so `sudo make install` needs no Go toolchain for root.
# DESTDIR stages the install under another root (packaging): DESTDIR=/tmp/pkg.
install: ## install bin/solgate into $(PREFIX)/bin (default /usr/local/bin): make build && sudo make install
	@test -x $(BIN) || { echo "$(BIN) is missing: run make build first"; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/solgate

localnet-deps: localnet/node_modules/.package-lock.json ## install the test ledger's npm packages from the lockfile

# npm ci only when the lockfile changed, so repeated `make test` stays fast.
localnet/node_modules/.package-lock.json: localnet/package-lock.json localnet/package.json
	cd localnet && $(NPM) ci --no-audit --no-fund
	@touch $@

localnet-programs: ## reassemble localnet/programs/cpswap.so from cpswap.s (needs LLVM's llvm-mc and llvm-objcopy; the .so is committed)
	node localnet/programs/build.mjs

# The official TypeScript MCP SDK client the end-to-end tests drive `solgate
# mcp` with (mcpbridge/authority/tsclient_e2e_test.go), pinned by its lockfile.
TSCLIENT := mcpbridge/authority/testdata/tsclient
tsclient-deps: $(TSCLIENT)/node_modules/.package-lock.json ## install the TypeScript MCP client the tests drive, from the lockfile

$(TSCLIENT)/node_modules/.package-lock.json: $(TSCLIENT)/package-lock.json $(TSCLIENT)/package.json
	cd $(TSCLIENT) && $(NPM) ci --no-audit --no-fund
	@touch $@

# The test ledger alone, in the foreground, for your own MCP client (README, "Try
# it with your own MCP client, offline"). Ctrl-C stops it.
LOCALNET_PORT ?= 8899
.PHONY: localnet
localnet: localnet-deps ## run the local test ledger alone on 127.0.0.1:$(LOCALNET_PORT) (Ctrl-C stops it)
	node localnet/server.mjs --port $(LOCALNET_PORT) --paid-api

vet: ## go vet
	$(GO) vet ./...

# govulncheck against a database built here from the pinned golang.org/x/vulndb
# (.ci/vuln/go.mod), cached per pin; fails on a reachable vulnerability that
# .ci/vuln/baseline.json does not accept. Refreshing is one pin bump (SECURITY.md, "Known vulnerabilities").
.PHONY: vuln
vuln: ## known-vulnerability gate: govulncheck over every package, against .ci/vuln/baseline.json
	.ci/vuln/run

# macOS is built and vetted here, not run (SECURITY.md, "macOS").
DARWIN_ARCHS ?= amd64 arm64
.PHONY: darwin
darwin: ## cross-build and vet for macOS (amd64, arm64)
	@for arch in $(DARWIN_ARCHS); do \
	  echo "darwin/$$arch: vet, build"; \
	  GOOS=darwin GOARCH=$$arch $(GO) vet ./... || exit 1; \
	  GOOS=darwin GOARCH=$$arch $(GO) build -o /dev/null ./cmd/solgate || exit 1; \
	done

test: localnet-deps tsclient-deps vet ## install the npm packages the tests drive, vet, run every test under -race
	$(GO) test $(TESTFLAGS) ./...

# make test RUNS times in a row (default 5) beside a CPU hog: a test that only
# passes on an idle machine is a defect. The hog is `stress -c HOG_CPUS` (Debian
# package stress) or, without it, as many shell busy loops. Stops at the first
# red run. LOAD_CMD replaces `make test` (e.g. to try the target on one package).
RUNS     ?= 5
HOG_CPUS ?= 4
LOAD_CMD ?= $(MAKE) --no-print-directory test
.PHONY: test-under-load
test-under-load: localnet-deps ## make test RUNS times (default 5) with a CPU hog (stress -c 4) beside it
	@hogs=""; trap 'kill $$hogs 2>/dev/null' EXIT INT TERM; \
	if command -v stress >/dev/null 2>&1; then \
	  stress -c $(HOG_CPUS) >/dev/null 2>&1 & hogs="$$!"; echo "hog: stress -c $(HOG_CPUS) (pid $$hogs)"; \
	else \
	  for i in $$(seq $(HOG_CPUS)); do sh -c 'while :; do :; done' & hogs="$$hogs $$!"; done; \
	  echo "hog: $(HOG_CPUS) shell busy loops (apt-get install stress for stress -c)"; \
	fi; \
	for run in $$(seq $(RUNS)); do \
	  start=$$(date +%s); \
	  if $(LOAD_CMD); then echo "test-under-load: run $$run/$(RUNS) green in $$(( $$(date +%s) - start )) s"; \
	  else echo "test-under-load: run $$run/$(RUNS) RED after $$(( $$(date +%s) - start )) s"; exit 1; fi; \
	done; \
	echo "test-under-load: $(RUNS)/$(RUNS) runs green beside the hog"

# The fault matrix (mcpbridge/authority/faults_test.go) at full size. `make test`
# runs the same tests with SOLGATE_FAULT_N unset (2 transfers per fault).
FAULT_N ?= 20
.PHONY: faults
faults: localnet-deps ## fault matrix: FAULT_N transfers per injected fault (default 20), checked on the ledger and the audit DB
	SOLGATE_FAULT_N=$(FAULT_N) $(GO) test -race -count=1 -timeout 30m -v -run '^TestFault' ./mcpbridge/authority/

demo: build localnet-deps ## start a local ledger and walk through solgate on it
	./$(BIN) demo

prove: build localnet-deps ## one real transfer on a fresh local ledger, with its PROOF block
	./$(BIN) demo --prove

# How many random transactions make fuzz checks against the ledger (about a
# minute per 1000 on the 2-core machine).
EFFECTS_DIFF ?= 1000

fuzz: localnet-deps ## run every fuzz target for FUZZTIME each, and the effects engine against the ledger
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done
	@echo "effects engine against the ledger: $(EFFECTS_DIFF) random transactions"
	SOLGATE_EFFECTS_DIFF=$(EFFECTS_DIFF) $(GO) test -count=1 -timeout 20m -run '^TestEffectsMatchTheLedger$$' ./executor/

# The benchmark program (cmd/solgate-bench) against real processes on localnet:
# one table, also written as JSON. npm ci for the reference MCP server runs only
# when its lockfile changed. BENCHFLAGS passes extra flags (e.g. -strict, -only).
BENCH_REF := cmd/solgate-bench/refserver
BENCHFLAGS ?=
bench: build localnet-deps ## full benchmark suite on localnet (several minutes); writes bench-results/bench.json
	@test $(BENCH_REF)/node_modules/.package-lock.json -nt $(BENCH_REF)/package-lock.json || (cd $(BENCH_REF) && $(NPM) ci --no-audit --no-fund)
	$(GO) build -o bin/solgate-bench ./cmd/solgate-bench
	./bin/solgate-bench -solgate $(BIN) -ref-dir $(BENCH_REF) -out bench-results/bench.json $(BENCHFLAGS)

.PHONY: bench-quick
bench-quick: build localnet-deps ## the benchmark suite with small counts (CI; under 2 minutes)
	@test $(BENCH_REF)/node_modules/.package-lock.json -nt $(BENCH_REF)/package-lock.json || (cd $(BENCH_REF) && $(NPM) ci --no-audit --no-fund)
	$(GO) build -o bin/solgate-bench ./cmd/solgate-bench
	./bin/solgate-bench -quick -solgate $(BIN) -ref-dir $(BENCH_REF) -out bench-results/bench-quick.json $(BENCHFLAGS)

clean:
	rm -rf bin dist
