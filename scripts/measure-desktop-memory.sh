#!/usr/bin/env bash
# Measures the desktop app's resident memory on the six-table demo pit, at real pace: the app's own
# process plus the WebKit processes it starts (web content, network). Run inside an X server:
#   xvfb-run -a -s "-screen 0 1440x900x24" scripts/measure-desktop-memory.sh APP [SECONDS]
# Prints each process's resident (RSS) and proportional (PSS: shared pages divided among the
# processes that map them) and unique (USS: pages no other process maps, what quitting the app
# gives back) memory after SECONDS (default 120) of live demo play, and the totals,
# and the CPU the processes used over the last SECONDS - 10 of it (after start-up).
# The app's own environment switches apply (PITWATCH_GPU=1 lets WebKit composite on the GPU).
set -euo pipefail
app=$1
settle=${2:-120}
db=$(mktemp -d)/pitwatch.db
PITWATCH_DB=$db "$app" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
descendants() {
  local p=$1
  echo "$p"
  for c in $(pgrep -P "$p" || true); do descendants "$c"; done
}
# CPU ticks (user + system) of the app and its descendants.
ticks() {
  local sum=0
  for p in $(descendants "$pid"); do
    sum=$((sum + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$sum"
}
sleep 10
cpu_from=$(ticks)
sleep $((settle - 10))
cpu_used=$(($(ticks) - cpu_from))
hz=$(getconf CLK_TCK)
total=0
total_pss=0
total_uss=0
printf '%-24s %10s %10s %10s\n' process "RSS kB" "PSS kB" "USS kB"
for p in $(descendants "$pid"); do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
  pss=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
  uss=$(awk '/^Private_(Clean|Dirty):/ {sum += $2} END {print sum + 0}' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0)
  name=$(cat "/proc/$p/comm" 2>/dev/null || echo "?")
  printf '%-24s %10d %10d %10d\n' "$name" "$rss" "$pss" "$uss"
  total_uss=$((total_uss + uss))
  total=$((total + rss))
  total_pss=$((total_pss + pss))
done
printf 'after %s s: resident %d MB, proportional %d MB, unique %d MB\n' "$settle" $((total / 1024)) $((total_pss / 1024)) $((total_uss / 1024))
printf 'CPU over the last %d s: %d%% of one core\n' $((settle - 10)) $((100 * cpu_used / hz / (settle - 10)))
