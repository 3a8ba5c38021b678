#!/usr/bin/env bash
# The faults of docs/reliability.md, one scenario at a time, with any `pitwatch` binary (so the
# same scenario can be run on an older build to compare):
#
#   scripts/reliability-demo.sh SCENARIO [PITWATCH]      (default: target/release/pitwatch)
#
# Scenarios:
#   locked          a `pitwatch import` of a large capture holds the database's write lock for
#                   seconds while a table is recorded live
#   full-disk       the database's disk (a small tmpfs; needs root) fills up, then space returns
#   flood           a device sends garbage at full speed for 15 s; the monitor's memory, sampled
#   storm           500 device errors with new codes and 50 of the same code, imported
#   import-clash    `pitwatch import` into a table the monitor records
#   closed-stdout   `pitwatch monitor | head -c 16`
#   control-char    a NUL in a table name
#   threads         300 tables with at most 60 threads (an unprivileged user under `prlimit`)
#   zero-backoff    a reconnect backoff of 0 to a port nobody listens on, for 2 s
#   replay-garbage  `pitwatch replay --format barcode` of 50 MB with no line end: peak memory
#
# Needs python3 (a small TCP device and reading the database), prlimit and setpriv (util-linux).
set -uo pipefail

scenario=${1:?"usage: $0 SCENARIO [PITWATCH]"}
P=$(readlink -f "${2:-target/release/pitwatch}")
tmp=$(mktemp -d)
cd "$tmp"
cleanup() {
  jobs -p | xargs -r kill 2>/dev/null
  mountpoint -q "$tmp/mnt" 2>/dev/null && umount -l "$tmp/mnt"
  rm -rf "$tmp"
}
trap cleanup EXIT
echo "scenario $scenario, $P, $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

pit() { # NAME PROTOCOL ADDRESS [EXTRA LINK SETTINGS]
  cat > pit.toml <<EOF
[site]
name = "Demo"
[[table]]
name = "$1"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "$2" }
link = { kind = "tcp", address = "$3"${4:+, $4} }
EOF
}

# The raw bytes on record for a table, compared with a capture of what was sent.
compare() { # DB TABLE CAPTURE
  python3 - "$@" <<'EOF'
import sqlite3, sys
db, table, capture = sys.argv[1:]
c = sqlite3.connect(db)
got = b"".join(r[0] for r in c.execute(
    "SELECT r.bytes FROM raw_chunks r JOIN device_sessions s ON s.id = r.session_id "
    "JOIN pit_tables t ON t.id = s.table_id WHERE t.name = ? ORDER BY r.id", (table,)))
sent = open(capture, "rb").read()
common = 0
while common < min(len(got), len(sent)) and got[common] == sent[common]:
    common += 1
print(f"bytes sent {len(sent)}, on record {len(got)}, identical prefix {common}, "
      f"missing {len(sent) - common}, extra {len(got) - common}")
EOF
}

sim_live() { # PORT CAPTURE: an Angel Eye shoe at 10x until stopped
  "$P" sim --protocol angel-eye --pace 10x --seed 5 --tcp "127.0.0.1:$1" --capture "$2" > /dev/null 2> sim.err &
  SIM=$!
  sleep 0.5
}

stop() { kill -INT "$1" 2>/dev/null; wait "$1" 2>/dev/null; echo "exit $?"; }

summary() { # what the monitor said on stderr
  echo "monitor stderr: $(grep -c 'RECORDING DEGRADED' mon.err) degraded report(s), $(grep -c 'recording recovered' mon.err) recovered, $(grep -c 'FAILED' mon.err) FAILED line(s), $(grep -c panicked mon.err) panic(s)"
  grep -m1 'RECORDING DEGRADED' mon.err | cut -c1-220
  grep -m1 'recording recovered' mon.err | cut -c1-220
  grep -m2 'FAILED' mon.err | cut -c1-220
}

case "$scenario" in
locked)
  p1=$(port); "$P" sim --protocol angel-eye --pace fast --shoes 1200 --seed 3 --tcp "127.0.0.1:$p1" --capture big.bin --linger-ms 200 > /dev/null 2>&1 &
  sleep 0.5
  python3 -c "import socket; s=socket.create_connection(('127.0.0.1',$p1)); s.settimeout(5)
try:
    while s.recv(1<<20): pass
except Exception: pass"
  wait
  p2=$(port); sim_live "$p2" live.bin
  pit T1 angel-eye "127.0.0.1:$p2"
  "$P" monitor --config pit.toml --db pit.db > mon.out 2> mon.err &
  MON=$!
  sleep 3
  start=$(date +%s%N)
  "$P" import --db pit.db --table BIG --format angel-eye big.bin > import.out 2>&1
  status=$?
  echo "import of $(stat -c %s big.bin) bytes (one transaction, holding the write lock): exit $status, $(( ($(date +%s%N) - start) / 1000000 )) ms"
  sleep 5
  kill -INT $SIM; wait $SIM; sleep 2
  echo -n "monitor "; stop $MON
  summary
  compare pit.db T1 live.bin
  ;;
full-disk)
  mkdir mnt && mount -t tmpfs -o size=8m pitwatch-demo mnt || { echo "needs root to mount a tmpfs"; exit 1; }
  p=$(port); sim_live "$p" live.bin
  pit T1 angel-eye "127.0.0.1:$p"
  "$P" monitor --config pit.toml --db mnt/pit.db > mon.out 2> mon.err &
  MON=$!
  sleep 3
  dd if=/dev/zero of=mnt/filler bs=64k 2>/dev/null; sync
  echo "disk full at $(date -u +%T): $(df -k mnt | tail -1 | awk '{print $4}') KB free"
  sleep 8
  rm mnt/filler
  echo "space back at $(date -u +%T)"
  sleep 8
  kill -INT $SIM; wait $SIM; sleep 2
  echo -n "monitor "; stop $MON
  summary
  compare mnt/pit.db T1 live.bin
  ;;
flood)
  p=$(port)
  python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $p)); s.listen(1)
c, _ = s.accept(); end = time.time() + 15; block = b'x' * 65536; sent = 0
try:
    while time.time() < end:
        sent += c.send(block)
except Exception: pass
print(f'flooder: {sent} bytes sent in 15 s')
time.sleep(30)
" > flood.out &
  FLOOD=$!
  sleep 0.3
  pit T1 barcode "127.0.0.1:$p"
  "$P" monitor --config pit.toml --db pit.db > mon.out 2> mon.err &
  MON=$!
  peak=0
  for i in $(seq 1 16); do
    sleep 1
    rss=$(ps -o rss= -p $MON 2>/dev/null | tr -d ' ')
    [ -z "$rss" ] && { echo "  ${i} s: the monitor has ended"; break; }
    echo "  ${i} s: monitor resident memory $((rss / 1024)) MB"
    [ "$rss" -gt "$peak" ] && peak=$rss
  done
  echo "peak resident memory $((peak / 1024)) MB"
  sleep 5
  echo -n "monitor "; stop $MON
  kill $FLOOD 2>/dev/null; wait $FLOOD 2>/dev/null; cat flood.out
  summary
  python3 - <<'EOF'
import sqlite3
c = sqlite3.connect("pit.db")
raw = c.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(bytes)), 0) FROM raw_chunks").fetchone()
rej = c.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(bytes)), 0) FROM frames WHERE accepted = 0").fetchone()
print(f"on record: {raw[1]} bytes in {raw[0]} raw chunks; {rej[0]} rejected-frame rows holding {rej[1]} bytes")
EOF
  ;;
storm)
  python3 - <<'EOF'
def crc(b):
    c = 0xFFFF
    for x in b:
        c ^= x << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) & 0xFFFF if c & 0x8000 else (c << 1) & 0xFFFF
    return c
seq = 0
out = bytearray()
def line(body):
    global seq
    seq += 1
    text = f"PW1 {seq} {body}".encode()
    out.extend(text + b" *%04X\r\n" % crc(text))
line("HELLO proto=1 role=shoe make=Demo model=storm serial=S-1 fw=1")
for _ in range(50):
    line("ERROR code=E7 text=card%20jam")
    line("CLEAR code=E7")
for n in range(500):
    line(f"ERROR code=X{n} text=unknown")
open("storm.bin", "wb").write(out)
EOF
  "$P" import --db pit.db --table T1 --format pitwatch --pace-ms 50 storm.bin > import.out 2>&1
  echo "import: exit $?; $(head -1 import.out | cut -c1-200)"
  python3 -c "import sqlite3; c=sqlite3.connect('pit.db'); print('incidents:', c.execute('SELECT COUNT(*) FROM incidents').fetchone()[0])"
  ;;
import-clash)
  p=$(port)
  python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $p)); s.listen(1)
c, _ = s.accept()
cards = [b'511\r', b'011\r', b'049\r', b'028\r', b'008\r'] + [b'%03d\r' % (1 + i % 52) for i in range(200)]
for card in cards:
    c.send(card); time.sleep(0.05)
time.sleep(30)
" &
  DEV=$!
  sleep 0.3
  pit T1 barcode "127.0.0.1:$p"
  "$P" monitor --config pit.toml --db pit.db > mon.out 2> mon.err &
  MON=$!
  sleep 2
  printf '511\r001\r002\r003\r004\r' > capture.txt
  "$P" import --db pit.db --table T1 --format barcode capture.txt > import.out 2> import.err
  echo "import into T1 while the monitor records it: exit $?"
  head -2 import.err | cut -c1-220; head -1 import.out | cut -c1-220
  sleep 10
  echo -n "monitor "; stop $MON
  kill $DEV 2>/dev/null
  summary
  ;;
closed-stdout)
  p=$(port)
  python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $p)); s.listen(1); c, _ = s.accept(); time.sleep(30)" &
  pit T1 barcode "127.0.0.1:$p"
  "$P" monitor --config pit.toml --db pit.db 2> mon.err | head -c 16 > /dev/null
  echo "pitwatch monitor | head -c 16: monitor exit ${PIPESTATUS[0]}"
  summary
  grep -m1 -A1 panicked mon.err | cut -c1-200
  ;;
control-char)
  pit 'BAC\u0000-1' angel-eye 127.0.0.1:9
  "$P" monitor --config pit.toml --db pit.db > mon.out 2> mon.err
  echo "exit $?"
  head -4 mon.err | cut -c1-200
  ;;
threads)
  chmod 777 "$tmp"
  python3 - <<'EOF'
lines = ['[site]', 'name = "Big"']
for i in range(300):
    lines += ['[[table]]', f'name = "T{i:03}"', 'game = "baccarat"', 'rules = "nz-baccarat"',
              'device = { protocol = "angel-eye" }', 'link = { kind = "tcp", address = "127.0.0.1:9" }']
open("big.toml", "w").write("\n".join(lines) + "\n")
EOF
  as=""; [ "$(id -u)" = 0 ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
  $as prlimit --nproc=60:60 -- timeout -s INT 5 "$P" monitor --config big.toml --db "$tmp/big.db" > mon.out 2> mon.err
  echo "300 tables, at most 60 threads: exit $?"
  grep -v "^$" mon.err | head -3 | cut -c1-220
  ;;
zero-backoff)
  pit T1 angel-eye 127.0.0.1:9 "backoff = { initial_ms = 0, max_ms = 0 }"
  timeout -s INT 2 "$P" monitor --config pit.toml --db pit.db > mon.out 2> mon.err
  echo "exit $?; connection attempts in 2 s: $(grep -c 'cannot connect' mon.out)"
  head -3 mon.err | cut -c1-200
  ;;
replay-garbage)
  head -c 50000000 /dev/zero | tr '\0' 'x' > garbage.bin
  /usr/bin/time -f "peak resident memory %M KB, %e s" "$P" replay --format barcode --rules nz-baccarat garbage.bin > replay.out 2> time.err
  echo "exit $?; $(tail -1 time.err); $(wc -l < replay.out) lines of report"
  tail -2 replay.out | cut -c1-200
  ;;
*)
  echo "unknown scenario $scenario"; exit 2 ;;
esac
