# BesluitBron. `make run` builds and serves; `make test` runs every test.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GO      ?= go
ADDR    ?=
PLUGINS := $(patsubst plugins/%/cmd/,%,$(wildcard plugins/*/cmd/))
WASM    := $(foreach p,$(PLUGINS),bin/plugins/$(p).wasm)
NATIVE  := $(foreach p,$(PLUGINS),bin/plugins/$(p))

.PHONY: all build host plugins native run test vet race bench clean browser-deps ts-client

all: build

build: host plugins native

host:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o bin/besluitbron ./cmd/besluitbron

plugins: $(WASM)

# Connectors are always rebuilt by go build's own cache; the rule is phony
# per file so an edit in sdk/ reaches every module.
bin/plugins/%.wasm: FORCE
	@mkdir -p bin/plugins
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -o $@ ./plugins/$*/cmd

# The same connectors as native go-plugin processes, for runtime =
# "process" in plugins.toml.
native: $(NATIVE)

$(NATIVE): bin/plugins/%: FORCE
	@mkdir -p bin/plugins
	$(GO) build -o $@ ./plugins/$*/cmd

FORCE:

run: build
	bin/besluitbron serve --config plugins.toml $(if $(ADDR),--addr $(ADDR))

# The browser tests need Debian's chromium: as root, install it when missing.
browser-deps:
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ]; then scripts/install-chromium.sh; fi

test: vet browser-deps
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race ./sched/... ./host/...
	GO=$(GO) scripts/ts-client-429.sh

# The official TypeScript MCP client meets the client rate limits (npm ci
# into var/ts-client, then one Go test drives it).
ts-client:
	GO=$(GO) scripts/ts-client-429.sh

vet:
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./sdk/... ./plugins/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./host/... ./sched/...

clean:
	rm -rf bin var
