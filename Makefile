# procalloc: see README.md. Every target that needs HiGHS installs it first (idempotent).
GO      ?= go
TAGS    ?= highs
BIN     := bin/procalloc
BENCHTIME ?= 1s

.PHONY: all build test test-full test-race test-slurm test-mpi test-flux test-browser bench demo claims highs lint clean

all: build

highs:
	@bash scripts/install-highs.sh

build: highs
	$(GO) build -tags $(TAGS) -o $(BIN) ./cmd/procalloc

test: highs
	$(GO) vet -tags $(TAGS) ./...
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) test -tags $(TAGS) -short ./...
	@# Without HiGHS (and cgo) everything builds and the ordering commands still work.
	CGO_ENABLED=0 $(GO) build ./...
	CGO_ENABLED=0 $(GO) test -short ./cmd/procalloc ./ilp/... ./order/... ./qap/...

# test-full also runs the long cross-checks that -short trims (every grid of the MIP
# against the DP, the interrupt timings, Slurm when installed, larger random cases).
test-full: highs
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -tags $(TAGS) ./...

# test-race runs the short tests under Go's race detector (cgo, so HiGHS's binding
# too): compare's and sweep's parallel replays, progress bars, interrupts, the
# solvers' workers and caches. alloc, netsim and ptas are left out as wholes: their
# code starts no goroutine and most of their tests none (their code runs under the
# detector in sim's and cmd/procalloc's parallel tests), and they are 21 of the 38
# minutes the whole tree takes. netsim's routers, distance classes and flit tables
# are shared by concurrent replays, so its tests of that sharing (RACE_NETSIM) run
# under it too (seconds). About 10 minutes on 2 cores: not part of make test, which
# CI runs (docs/reliability.md).
RACE_PKGS = $(shell $(GO) list ./... | grep -v -e '/alloc$$' -e '/netsim$$' -e '/ptas$$')
RACE_NETSIM = TestFlitEnginesShareTheirNetwork|TestRouteMetersShareOneRouter|TestEnginesShareTheirRoutersClasses
test-race: highs
	$(GO) test -tags $(TAGS) -race -short $(RACE_PKGS)
	$(GO) test -tags $(TAGS) -race -short -run '$(RACE_NETSIM)' ./netsim

# test-slurm starts a 16-node Slurm on loopback (Debian's packages, installed when
# missing; needs root), checks procalloc's Slurm emulation against it placement by
# placement, deploys procalloc plan's files on it, stops it, and ends with
# "plan: N placements predicted, D differ" and "slurm: N placements compared, D differ".
test-slurm:
	@GO=$(GO) bash scripts/test-slurm.sh

# test-mpi runs procalloc's hosts files and rankfiles through Open MPI's mpirun and
# MPICH's mpiexec (Debian's openmpi-bin and mpich, installed when missing; needs root)
# and checks every rank's host against the ordering, and that a rankfile's ranks are not
# pinned to one core; ends with "mpi: N launches, ...".
test-mpi:
	@GO=$(GO) bash scripts/test-mpi.sh

# test-flux builds fluxion's resource-query (flux-sched) from the checkouts named by
# FLUX_CORE_SRC and FLUX_SCHED_SRC, with Debian's -dev packages (installed when
# missing; needs root), and checks that Flux hands out the nodes of procalloc's jgf
# graph in curve order (TestFluxResourceQuery, which skips without resource-query).
# About 28 minutes the first time; only when asked, never in make test.
test-flux:
	@GO=$(GO) bash scripts/test-flux.sh

# test-browser opens procalloc plan's HTML report in a real headless Chromium (Debian's
# chromium, installed when missing; needs root) and checks what it renders.
test-browser: highs
	@GO=$(GO) TAGS=$(TAGS) bash scripts/test-browser.sh

# lint: staticcheck (from the Go module proxy, pinned) over the build with HiGHS.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: highs
	$(GO) run $(STATICCHECK) -tags $(TAGS) ./...

bench: highs
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

demo: build
	@bash scripts/demo.sh $(BIN)

# claims re-runs the figures README.md and docs/ quote that regenerate in minutes,
# checks them against the pages, and lists those it does not re-run (and how to).
# CLAIMS_ONLY=REGEX (e.g. make claims CLAIMS_ONLY='ptas-.*') runs only the checks named.
claims: build
	@GO=$(GO) bash scripts/claims.sh $(BIN)

clean:
	rm -rf bin out
