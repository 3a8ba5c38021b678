#!/usr/bin/env bash
# Writes a pit definition of N simulated baccarat tables (three Angel Eye shoes to one barcode
# shoe) to standard output, for load tests of the desktop app:
#   scripts/simulated-pit.sh 50 > /tmp/pit50.toml
#   PITWATCH_CONFIG=/tmp/pit50.toml PITWATCH_APP=… xvfb-run -a node scripts/measure-desktop-latency.mjs
set -euo pipefail
n=${1:?usage: simulated-pit.sh TABLES}
printf 'demo = true\n\n[site]\nname = "Load test pit (%d simulated tables)"\n' "$n"
for i in $(seq 1 "$n"); do
  protocol=angel-eye
  if [ $((i % 4)) -eq 0 ]; then protocol=barcode; fi
  printf '\n[[table]]\nname = "T%02d"\ngame = "baccarat"\nrules = "nz-baccarat"\ndevice = { protocol = "%s" }\nsimulated = true\n' "$i" "$protocol"
done
