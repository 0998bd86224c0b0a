# solgate — the commands a newcomer and CI run. `make help` lists them.
GO        ?= go
NPM       ?= npm
BIN       := bin/solgate
# Bounded by default so CI stays well inside its time limit; raise for longer runs.
FUZZTIME  ?= 10s
TESTFLAGS ?= -race -count=1 -timeout 20m

.PHONY: help build test vet localnet-deps demo prove fuzz bench clean

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

build: ## build bin/solgate
	$(GO) build -o $(BIN) ./cmd/solgate

localnet-deps: localnet/node_modules/.package-lock.json ## install the test ledger's npm packages from the lockfile

# npm ci only when the lockfile changed, so repeated `make test` stays fast.
localnet/node_modules/.package-lock.json: localnet/package-lock.json localnet/package.json
	cd localnet && $(NPM) ci --no-audit --no-fund
	@touch $@

vet: ## go vet
	$(GO) vet ./...

test: localnet-deps vet ## install localnet deps, vet, run every test under -race
	$(GO) test $(TESTFLAGS) ./...

demo: build localnet-deps ## start a local ledger and walk through solgate on it
	./$(BIN) demo

prove: build localnet-deps ## one real transfer on a fresh local ledger, with its PROOF block
	./$(BIN) demo --prove-only

fuzz: ## run every fuzz target for FUZZTIME each
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

bench: ## run Go benchmarks
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
