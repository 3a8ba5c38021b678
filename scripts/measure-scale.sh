#!/usr/bin/env bash
# The thousand-table figures of issue 33 (docs/benchmarks.md, "A thousand tables"):
#
#   scripts/measure-scale.sh bench [TABLES]     `bench pit` for 25 s at 10x; at 10 s, the process's
#                                               threads and each kind of thread's CPU over 8 s
#   scripts/measure-scale.sh bench-ctrl-c [T]   `bench pit` for an hour, Ctrl-C at 22 s: the time
#                                               from the signal to the exit (figures printed)
#   scripts/measure-scale.sh monitor-ctrl-c [T] `pitwatch monitor` on T pseudo-terminals fed the
#                                               frames a kept bench's simulators sent: threads and
#                                               memory at 25 s, then Ctrl-C and the time to exit
#   scripts/measure-scale.sh away [TABLES]      `pitwatch monitor` on T serial ports that do not
#                                               exist: the readers' CPU while they wait to
#                                               reconnect, then Ctrl-C
#
# TABLES defaults to 1000. Needs the release build (cargo build --release -p pitwatch-cli) or
# PITWATCH_BIN, and python3 (the pseudo-terminal feeder and the per-thread CPU). CPU per thread is
# read from /proc/PID/task/*/schedstat, which counts nanoseconds (the clock-tick counts round a
# thousand small threads down to nothing).
set -euo pipefail
mode=${1:?bench, bench-ctrl-c, monitor-ctrl-c or away}
tables=${2:-1000}
bin=$(realpath "${PITWATCH_BIN:-target/release/pitwatch}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }

# Threads of PID grouped by name, with the CPU each group used over SECONDS.
thread_cpu() {
  python3 - "$1" "$2" <<'EOF'
import collections, os, sys, time
pid, span = sys.argv[1], float(sys.argv[2])
def snap():
    d = {}
    for t in os.listdir(f'/proc/{pid}/task'):
        try:
            comm = open(f'/proc/{pid}/task/{t}/comm').read().strip()
            ns = int(open(f'/proc/{pid}/task/{t}/schedstat').read().split()[0])
        except OSError:
            continue
        d[t] = (comm, ns)
    return d
a = snap(); time.sleep(span); b = snap()
cpu = collections.defaultdict(lambda: [0, 0])
for t, (comm, ns) in b.items():
    cpu[comm][0] += 1
    cpu[comm][1] += ns - a.get(t, (comm, 0))[1]
for comm, (n, ns) in sorted(cpu.items(), key=lambda x: -x[1][1]):
    print(f'  {comm:18} {n:5} threads  {ns / 1e9 / span * 100:6.1f}% of a core')
EOF
}

# Runs pitwatch monitor on PIT until 25 s, prints threads, memory and CPU, then Ctrl-C.
monitor_then_ctrl_c() {
  "$bin" monitor --config "$1" --db "$work/monitor.db" >"$work/monitor.out" 2>&1 &
  local pid=$!
  sleep 15
  echo "load average $(load); threads by kind and CPU over 10 s:"
  thread_cpu "$pid" 10
  grep -E '^(Threads|VmRSS)' /proc/"$pid"/status
  local t0 t1
  t0=$(date +%s.%N)
  kill -INT "$pid"
  wait "$pid" || true
  t1=$(date +%s.%N)
  echo "Ctrl-C to exit: $(echo "$t1 - $t0" | bc) s"
  tail -1 "$work/monitor.out"
}

case "$mode" in
  bench)
    echo "load average at start $(load)"
    "$bin" bench pit --tables "$tables" --pace 10x --seconds 25 --no-baseline &
    pid=$!
    sleep 10
    echo "threads by kind and CPU over 8 s, from 10 s into the run:"
    thread_cpu "$pid" 8
    wait "$pid" || true
    ;;
  bench-ctrl-c)
    echo "load average at start $(load)"
    "$bin" bench pit --tables "$tables" --pace 10x --seconds 3600 --no-baseline &
    pid=$!
    sleep 22
    t0=$(date +%s.%N)
    kill -INT "$pid"
    wait "$pid" || true
    t1=$(date +%s.%N)
    echo "Ctrl-C to exit: $(echo "$t1 - $t0" | bc) s"
    ;;
  monitor-ctrl-c)
    # Real honest streams first: a short bench whose simulators' captures are kept.
    # (40 s of frames: enough to feed every table through the 25 s measured below.)
    "$bin" bench pit --tables "$tables" --pace 10x --seconds 40 --no-baseline --keep "$work/kept" >/dev/null
    python3 - "$work/kept" "$tables" "$work/pit.toml" >"$work/feeder.out" 2>&1 <<'EOF' &
# One pseudo-terminal per table, fed its simulator's frames one at a time (Angel Eye every 180 ms,
# barcode every 400 ms, about ten times a dealer's pace); pit.toml names them. Runs until killed.
import os, sys, time, tty
kept, n, pit = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tables = []
for i in range(n):
    sent = open(f'{kept}/monitor-{i:03}.bin', 'rb').read()
    barcode = i % 4 == 3
    frames = ([f + b'\r' for f in sent.split(b'\r') if f] if barcode
              else [b'\x05' + f for f in sent.split(b'\x05') if f])
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    tables.append([master, slave, os.ttyname(slave), frames, 0, 0.4 if barcode else 0.18, barcode])
with open(pit, 'w') as f:
    f.write('[site]\nname = "Scale"\ntime_zone = "Pacific/Auckland"\n')
    for i, t in enumerate(tables):
        protocol = 'barcode' if t[6] else 'angel-eye'
        f.write(f'\n[[table]]\nname = "T{i + 1:04}"\ngame = "baccarat"\nrules = "nz-baccarat"\n'
                f'device = {{ protocol = "{protocol}" }}\n'
                f'link = {{ kind = "serial", path = "{t[2]}", baud = 9600 }}\n')
print('ready', flush=True)
start = time.monotonic()
while True:
    now = time.monotonic() - start
    for i, t in enumerate(tables):
        due = min(int((now + (i % 97) / 97 * t[5]) / t[5]), len(t[3]))
        while t[4] < due:
            try:
                os.write(t[0], t[3][t[4]])
            except BlockingIOError:
                break
            t[4] += 1
    time.sleep(0.02)
EOF
    feeder=$!
    until grep -q ready "$work/feeder.out" 2>/dev/null; do sleep 0.2; done
    monitor_then_ctrl_c "$work/pit.toml"
    kill "$feeder"
    ;;
  away)
    {
      printf '[site]\nname = "Away"\ntime_zone = "Pacific/Auckland"\n'
      for i in $(seq 1 "$tables"); do
        printf '\n[[table]]\nname = "T%04d"\ngame = "baccarat"\nrules = "nz-baccarat"\n' "$i"
        printf 'device = { protocol = "angel-eye" }\nlink = { kind = "serial", path = "%s/missing-%d", baud = 9600 }\n' "$work" "$i"
      done
    } >"$work/pit.toml"
    monitor_then_ctrl_c "$work/pit.toml"
    ;;
  *)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
