#!/usr/bin/env bash
# The live figures with and without the exposure watch (issue 29), back to back: the pit bench
# at 200 tables, 10x, 60 s, run without and then with `--exposure`, the pair twice, interleaved so
# that a change in the machine's load falls on both. Prints each run's figures.
#
#   scripts/measure-exposure-latency.sh [TABLES]     (default 200)
#
# Needs the release build: cargo build --release -p pitwatch-cli
set -euo pipefail
tables=${1:-200}
bin=${PITWATCH_BIN:-target/release/pitwatch}
for run in 1 2; do
  for exposure in "" "--exposure"; do
    echo "=== ${exposure:-without} ($run) $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
    # shellcheck disable=SC2086
    "$bin" bench pit --tables "$tables" --pace 10x --seconds 60 --no-baseline $exposure 2>&1 |
      grep -v "^    not "
  done
done
