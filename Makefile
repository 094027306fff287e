# BesluitBron. `make run` builds and serves; `make test` runs every test.
# The version from git tags v0.x.y (scripts/version.sh: 0.1.0 on the tag,
# 0.1.0-3-g<commit> after it, 0.0.0-dev.g<commit> without tags, dev without git).
VERSION ?= $(shell scripts/version.sh 2>/dev/null || echo dev)
GO      ?= go
ADDR    ?=
PLUGINS := $(patsubst plugins/%/cmd/,%,$(wildcard plugins/*/cmd/))
WASM    := $(foreach p,$(PLUGINS),bin/plugins/$(p).wasm)
# The example targets WebAssembly only: its module requires nothing but
# the sdk, so it has no native build.
NATIVE  := $(foreach p,$(filter-out example,$(PLUGINS)),bin/plugins/$(p))
# Modules of their own inside the repository (each with a go.mod; the root
# module reaches them through replace lines): go ./... from the root does
# not enter them, so test, vet and tidy visit each.
SUBMODULES := sdk sdk/native plugins/example

.PHONY: release image conformance fuzz-short soak all build host plugins native run demo test vet race bench clean browser-deps ts-client redis-deps

all: build

build: host plugins native

host:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/besluitbron ./cmd/besluitbron

plugins: $(WASM)

# Connectors are always rebuilt by go build's own cache; the rule is phony
# per file so an edit in sdk/ reaches every module.
bin/plugins/%.wasm: FORCE
	@mkdir -p bin/plugins
	GOOS=wasip1 GOARCH=wasm $(GO) build -C plugins/$* -buildmode=c-shared -o $(CURDIR)/$@ ./cmd

# The same connectors as native go-plugin processes, for runtime =
# "process" in plugins.toml.
native: $(NATIVE)

$(NATIVE): bin/plugins/%: FORCE
	@mkdir -p bin/plugins
	$(GO) build -C plugins/$* -o $(CURDIR)/$@ ./cmd

FORCE:

# make run builds only what serving needs: the host and the modules the
# config names (make build builds every connector both ways).
CONFIG  ?= plugins.toml
modules_of = $(shell sed -n 's/^module *= *"\(bin\/plugins\/[^"]*\)".*/\1/p' $(1))

run: host $(call modules_of,$(CONFIG))
	bin/besluitbron serve --config $(CONFIG) $(if $(ADDR),--addr $(ADDR))

# BesluitBron fully offline: the platform simulator (cmd/platformsim) on
# SIM_ADDR (default 127.0.0.1:9100; its request log in
# var/platformsim-<port>.log) and BesluitBron with demo.toml on ADDR (default
# demo.toml's 127.0.0.1:8080). Both ports can change, e.g.
#   make demo ADDR=127.0.0.1:8081 SIM_ADDR=127.0.0.1:9101
# (SIM_ADDR=127.0.0.1:0 takes any free port): the simulator writes the
# BESLUITBRON_ environment overrides that point every connector at the
# address it listens on (var/platformsim-<port>.env), and BesluitBron reads
# them over demo.toml. Every search result opens with its platform's
# document tool and every list tool lists something. Ask it from another
# terminal (Inspector 2.x; older ones post to /mcp whatever the URL says):
#   npx -y @modelcontextprotocol/inspector@2.12.0 --cli http://127.0.0.1:8080/mcp/unified/v1 \
#     --transport http --method tools/call --tool-name besluitbron_search --tool-arg query=klimaat
# (add --tool-arg organization=Soest, or --tool-arg 'platforms=["tk","rechtspraak"]').
# Ctrl-C stops both. Faults while it runs: curl -X PUT -d '{"hang":true}'
# http://127.0.0.1:9100/_sim/faults/ori (counters at /_sim/stats).
demo: SIM_ADDR ?= 127.0.0.1:9100
demo: SIM_VAR = var/platformsim-$(lastword $(subst :, ,$(SIM_ADDR)))
demo: host $(call modules_of,demo.toml)
	$(GO) build -o bin/platformsim ./cmd/platformsim
	@mkdir -p var; rm -f $(SIM_VAR).out $(SIM_VAR).env; \
	bin/platformsim -addr $(SIM_ADDR) -data testdata -env $(SIM_VAR).env >$(SIM_VAR).out 2>$(SIM_VAR).log & sim=$$!; \
	trap 'kill $$sim 2>/dev/null' EXIT INT TERM; \
	n=0; until grep -q 'serving on' $(SIM_VAR).out 2>/dev/null; do \
		n=$$((n+1)); if [ $$n -gt 100 ] || ! kill -0 $$sim 2>/dev/null; then cat $(SIM_VAR).log; echo "platformsim did not start on $(SIM_ADDR)"; exit 1; fi; sleep 0.1; done; \
	cat $(SIM_VAR).out; \
	set -a; . ./$(SIM_VAR).env; set +a; \
	bin/besluitbron serve --config demo.toml $(if $(ADDR),--addr $(ADDR))

# The browser tests need Debian's chromium: as root, install it when missing.
browser-deps:
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ]; then scripts/install-chromium.sh; fi

# The cluster integration tests need Debian's redis-server: as root,
# install it when missing.
redis-deps:
	@if ! command -v redis-server >/dev/null && [ "$$(id -u)" = 0 ]; then scripts/install-redis.sh; fi

# Every test (scripts/test.sh: each step in turn, a summary at the end).
test: browser-deps redis-deps
	GO=$(GO) MAKE=$(MAKE) SUBMODULES="$(SUBMODULES)" scripts/test.sh

# Every fuzz target for a second on one worker (seed corpora also run in
# go test; scripts/fuzz.sh says why so short).
fuzz-short:
	GO=$(GO) FUZZTIME=1s FUZZWORKERS=1 scripts/fuzz.sh

# Long runs: every fuzz target for minutes, then load, faults and kills
# during cache saves for SOAK (default 10m) each, and the hostile-load
# attacks for SOAK/5 each (at least 30 s), larger (1,100 slow-body
# connections, 5,000 sessions).
soak:
	GO=$(GO) FUZZTIME=$${FUZZTIME:-2m} scripts/fuzz.sh
	BESLUITBRON_SOAK=$${SOAK:-10m} $(GO) test -count=1 -timeout 2h -v -run '^(TestLoad|TestFaultIsolation|TestKillDuringCacheSave|TestHostileLoad)$$' ./host/

# The official MCP conformance suite against the conformance connector
# (conformance.toml; Node 22 from npm into var/node, shared with
# scripts/readme-clients.sh, and the suite into var/conformance).
conformance:
	MAKE=$(MAKE) scripts/conformance.sh

# The official TypeScript MCP client meets the client rate limits (npm ci
# into var/ts-client, then one Go test drives it).
ts-client:
	GO=$(GO) scripts/ts-client-429.sh

# go.mod and go.sum of every module as go mod tidy leaves them: direct
# requirements marked direct, nothing missing or unused (prints the diff
# otherwise). The sdk module must stay standard-library only.
vet:
	$(GO) mod tidy -diff
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./plugins/...
	set -e; for m in $(SUBMODULES); do (cd $$m && $(GO) mod tidy -diff && $(GO) vet ./... && GOOS=wasip1 GOARCH=wasm $(GO) vet ./...); done
	@if [ -n "$$(cd sdk && $(GO) list -m all | grep -v '^github.com/besluitbron/besluitbron/sdk$$')" ]; then \
		echo "sdk/go.mod requires modules beyond the standard library:"; cd sdk && $(GO) list -m all; exit 1; fi

# One table of every performance figure, each against its reference, with
# the command that reproduces each row; docs/benchmarks.md keeps the latest.
bench: redis-deps
	BESLUITBRON_TS_CLIENT_DIR=$$(scripts/ts-deps.sh) GO=$(GO) $(GO) run ./cmd/benchtable -o docs/benchmarks.md

# Everything a release publishes, in dist/ (scripts/release.sh; see
# docs/deploy.md): an archive per OS and architecture (linux, darwin,
# windows on amd64 and arm64) with the host and the connectors,
# checksums.txt, a CycloneDX SBOM, the OCI image as a layout and the MCPB
# desktop bundle. make image writes only the image.
release:
	GO=$(GO) VERSION=$(VERSION) scripts/release.sh all

image:
	GO=$(GO) VERSION=$(VERSION) scripts/release.sh image

clean:
	rm -rf bin var dist
