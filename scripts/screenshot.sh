#!/usr/bin/env bash
# Starts the desktop app (inside an X server such as xvfb-run), waits for its window to paint,
# saves a screenshot, and closes the app. Usage: screenshot.sh APP OUT.png [SECONDS]
set -euo pipefail
app=$1
out=$2
settle=${3:-3}
mkdir -p "$(dirname "$out")"
"$app" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if xwininfo -name Pitwatch >/dev/null 2>&1; then break; fi
  sleep 0.2
done
xwininfo -name Pitwatch >/dev/null
sleep "$settle"
/usr/bin/import -window Pitwatch "$out"
echo "saved $out"
