# Pitwatch: two commands for a newcomer.
#   make run   installs what is missing, builds, and opens the desktop app on the demo pit
#   make test  everything CI checks
#   make check the fast inner loop: formatting, lints, Rust tests and the UI's checks (no installs,
#              no desktop shell, no end-to-end test, no fuzzing)
# Other targets are the steps of those two.

SHELL := /bin/bash
.DEFAULT_GOAL := help

CARGO ?= cargo
NPM ?= npm
# Reuse one target directory across checkouts when CARGO_TARGET_DIR is set (CI does this).
TARGET_DIR := $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),$(CURDIR)/target)
APP := $(TARGET_DIR)/debug/pitwatch-desktop
XVFB := xvfb-run -a -s "-screen 0 1920x1080x24"

.PHONY: help deps system-deps tauri-driver ui-deps ui run app test fmt clippy rust-test desktop-test \
        ui-check ui-test e2e e2e-bins bindings screenshot fuzz-smoke \
        check check-clippy check-rust check-ui package check-package check-package-install

help:
	@echo "make run    install what is missing, build, and open Pitwatch on the demo pit"
	@echo "make test   formatting, lints, all Rust tests, front-end checks and tests, end-to-end test"
	@echo "make check  the fast loop: formatting, lints and tests without the desktop shell, UI checks"
	@echo "make package  the release build as a Debian package (app, CLI, monitor service); slow"

## ---- installing what is missing -------------------------------------------------------------

deps: system-deps tauri-driver ui-deps

system-deps:
	@scripts/install-system-deps.sh

# A small WebDriver proxy: a debug build compiles in about half the time and is fast enough.
tauri-driver:
	@command -v tauri-driver >/dev/null 2>&1 || [ -x "$$HOME/.cargo/bin/tauri-driver" ] || \
		$(CARGO) install tauri-driver --locked --version 2.1.0 --debug

ui-deps: ui/node_modules/.package-lock.json

ui/node_modules/.package-lock.json: ui/package.json ui/package-lock.json
	cd ui && $(NPM) ci --no-audit --no-fund
	@touch $@

## ---- building and running --------------------------------------------------------------------

ui: ui-deps
	cd ui && $(NPM) run build

app: ui
	$(CARGO) build -p pitwatch-desktop

run: system-deps ui-deps app
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
		echo "No display: starting Pitwatch under Xvfb (use 'make screenshot' to see it)."; \
		$(XVFB) $(APP); \
	else \
		$(APP); \
	fi

# Opens the app under Xvfb, waits for the window, and saves artifacts/screenshot.png.
screenshot: system-deps app
	$(XVFB) scripts/screenshot.sh $(APP) artifacts/screenshot.png

## ---- the Debian package ----------------------------------------------------------------------

# The release app, the `pitwatch` CLI and the monitor's systemd unit as one .deb (Tauri's bundler;
# src-tauri/tauri.package.json turns the bundle on for this build only, packaging/deb/ holds the
# unit, desktop entry and maintainer scripts). Not part of `make test`: a cold release build takes
# a quarter of an hour on two cores. The bundler copies binaries as they are, so both are stripped
# of their debug line tables first (in place: the CLI from 139 MB to 30 MB).
TAURI := $(CURDIR)/ui/node_modules/.bin/tauri
PACKAGE_CONFIG := --config src-tauri/tauri.package.json \
	--config '{"bundle":{"linux":{"deb":{"files":{"/usr/bin/pitwatch":"$(TARGET_DIR)/release/pitwatch"}}}}}'
DEB := $(TARGET_DIR)/release/bundle/deb/Pitwatch_$(shell sed -n 's/^  "version": "\(.*\)",/\1/p' src-tauri/tauri.conf.json)_amd64.deb

package: ui
	$(CARGO) build --release -p pitwatch-cli
	$(TAURI) build --no-bundle --ci $(PACKAGE_CONFIG)
	objcopy --strip-debug $(TARGET_DIR)/release/pitwatch
	objcopy --strip-debug $(TARGET_DIR)/release/pitwatch-desktop
	$(TAURI) bundle --bundles deb --ci $(PACKAGE_CONFIG)
	@echo "make package: $(DEB)"

# Inspects the built package (scripts/check-package.sh): contents, desktop entry, unit, scripts,
# and the CLI run from an unpacked copy.
check-package:
	scripts/check-package.sh $(DEB)

# Installs the built package on this machine's root seen through a throwaway overlay, booted with
# systemd in a container (scripts/check-package-install.sh; root): install, service, reload,
# stop, restart after a kill, removal and purge.
check-package-install:
	scripts/check-package-install.sh $(DEB)

## ---- checking --------------------------------------------------------------------------------

test: deps ui fmt clippy rust-test ui-check ui-test fuzz-smoke e2e
	@echo "make test: all checks passed"

# The inner loop, beside `make test`: what a change most often breaks, without installing anything,
# building the desktop shell (WebKitGTK), the end-to-end test or fuzzing. Rust tests are the default
# members (the shell is not one), which include the tidy test (tests/tests/tidy.rs).
check: fmt check-clippy check-rust check-ui
	@echo "make check: passed (make test runs everything)"

check-clippy:
	$(CARGO) clippy --workspace --exclude pitwatch-desktop --all-targets -- -D warnings

# The UI's type check and unit tests, on the packages already installed (`make ui-deps` installs).
check-ui:
	@[ -d ui/node_modules ] || { echo "check-ui: ui/node_modules is missing; run 'make ui-deps' once"; exit 1; }
	cd ui && $(NPM) run check
	cd ui && $(NPM) test

fmt:
	$(CARGO) fmt --all --check

clippy:
	$(CARGO) clippy --workspace --all-targets -- -D warnings

# Every crate's tests in one invocation, the desktop shell's included, so Cargo unifies features
# once and builds each crate once: a separate `-p pitwatch-desktop` or `-p pitwatch-cli` build
# resolves other features and compiles Tauri, SQLite and our crates again (minutes on CI). The
# shell's tests need the UI built (Tauri embeds ui/dist), and this build also makes the app and
# the CLI (`CARGO_BIN_EXE_…`) that `make e2e` drives.
rust-test: ui
	$(CARGO) test --workspace --no-fail-fast

# The default members only: the core and the CLI, without the desktop shell (no WebKitGTK).
check-rust:
	$(CARGO) test --no-fail-fast

desktop-test: ui
	$(CARGO) test -p pitwatch-desktop

ui-check: ui-deps
	cd ui && $(NPM) run check

ui-test: ui-deps
	cd ui && $(NPM) test

# The app and the CLI (a test holds the database's write lock with `pitwatch import`) as the
# workspace's test build makes them (see rust-test): after `make rust-test` this builds nothing.
# They are the same code `make app` builds; only Tauri's `test` feature (a dev-dependency of the
# shell, for its mock runtime) is switched on besides.
e2e-bins: ui
	$(CARGO) test --workspace --no-run

e2e: e2e-bins tauri-driver
	# A hard limit: a stuck WebDriver session must fail the run, not hold CI for its whole budget.
	PITWATCH_APP=$(APP) timeout --kill-after=10 900 $(XVFB) node --test --test-reporter=spec tests/e2e/

# Each fuzz target (fuzz/README.md) for FUZZ_SECONDS from its seeds, on a scratch corpus: the
# targets build and the seeds pass. Needs the nightly toolchain (skipped, saying so, without it);
# installs cargo-fuzz from crates.io when it is missing.
FUZZ_TARGETS := angel_eye barcode pitwatch_proto event_file rule_book pit_definition engine blackjack proto_screen untrusted_text
FUZZ_SECONDS ?= 5
# The smoke run builds without optimisation (debug assertions and the address sanitizer stay on):
# a few seconds per target need no speed, and an unoptimised build of every target compiles
# faster. Long runs (fuzz/README.md) use `cargo fuzz run` directly, optimised.
FUZZ_BUILD ?= --dev
fuzz-smoke:
	@if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then \
		echo "fuzz-smoke: SKIPPED: no nightly toolchain (rustup toolchain install nightly)"; \
		exit 0; \
	fi; \
	command -v cargo-fuzz >/dev/null 2>&1 || [ -x "$$HOME/.cargo/bin/cargo-fuzz" ] || \
		$(CARGO) install cargo-fuzz --locked --debug; \
	cd fuzz && $(CARGO) +nightly fuzz build $(FUZZ_BUILD) && \
	for t in $(FUZZ_TARGETS); do \
		scratch=$$(mktemp -d) && \
		$(CARGO) +nightly fuzz run $(FUZZ_BUILD) $$t $$scratch seeds/$$t -- -max_total_time=$(FUZZ_SECONDS) \
			-rss_limit_mb=2048 -print_final_stats=0 2>&1 | grep -E "^#[0-9]+ +DONE|ERROR|panicked|SUMMARY" ; \
		status=$${PIPESTATUS[0]}; rm -rf $$scratch; \
		if [ $$status -ne 0 ]; then echo "fuzz-smoke: $$t FAILED"; exit 1; fi; \
		echo "fuzz-smoke: $$t ok ($(FUZZ_SECONDS) s)"; \
	done

# Rewrites ui/src/lib/bindings.ts from the Rust DTOs and ui/src/lib/commands.ts from the command list.
bindings:
	UPDATE_BINDINGS=1 $(CARGO) test -p pitwatch-api --lib -- bindings_are_current commands_are_current
