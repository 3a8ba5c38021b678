#!/usr/bin/env bash
# The CPU time the live exposure watch costs (issue 29): runs the pit bench with `--exposure`
# and samples, once a second, the user + system time of the watch's own thread
# (`pitwatch-exposure`, shown by the kernel as `pitwatch-exposu`) and of the whole process,
# from /proc. CPU time hardly depends on what else the machine runs, unlike latency.
#
#   scripts/measure-exposure-cpu.sh [TABLES] [SECONDS]     (defaults: 200 tables, 60 s, at 10x)
#
# Needs the release build: cargo build --release -p pitwatch-cli
set -euo pipefail
tables=${1:-200}
seconds=${2:-60}
bin=${PITWATCH_BIN:-target/release/pitwatch}
out=$(mktemp)
"$bin" bench pit --tables "$tables" --pace 10x --seconds "$seconds" --no-baseline --exposure >"$out" 2>&1 &
bench=$!
sleep 2
thread=0
whole=0
while kill -0 "$bench" 2>/dev/null; do
  for task in /proc/"$bench"/task/*; do
    if [ "$(cat "$task/comm" 2>/dev/null)" = "pitwatch-exposu" ]; then
      t=$(awk '{print $14 + $15}' "$task/stat" 2>/dev/null || true)
      [ -n "$t" ] && thread=$t
    fi
  done
  w=$(awk '{print $14 + $15}' /proc/"$bench"/stat 2>/dev/null || true)
  [ -n "$w" ] && whole=$w
  sleep 1
done
wait "$bench" || true
grep -v "not on record" "$out"
rm -f "$out"
tick=$(getconf CLK_TCK)
echo "CPU time: the exposure's thread $(awk -v t="$thread" -v k="$tick" 'BEGIN { printf "%.2f", t / k }') s, the whole process $(awk -v t="$whole" -v k="$tick" 'BEGIN { printf "%.2f", t / k }') s (the thread's last sample before it stopped)"
