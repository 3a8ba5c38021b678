#!/usr/bin/env bash
# Installs the Debian package `make package` builds on a machine booted with systemd, and runs
# the monitor service the way an administrator would:
#   sudo scripts/check-package-install.sh target/release/bundle/deb/Pitwatch_0.1.0_amd64.deb
# The machine is this one's root seen through a throwaway overlay (nothing written here stays),
# booted with systemd as PID 1 in a container (systemd-nspawn, Debian's systemd-container,
# installed if missing). In it: any earlier pitwatch removed; the package installed with a pit
# definition already in /etc/pitwatch, so postinst creates the user and enables and starts the
# unit; the monitor reads a barcode shoe on a device server on loopback; `systemctl reload`
# (SIGHUP) reads the pit definition again; `systemctl stop` stops it in order; killed, it is
# restarted (Restart=on-failure) and the record verifies; removal stops and disables it; purge
# keeps the record. Needs root. Prints each check; exits 1 at the first that fails.
set -euo pipefail
deb=$(realpath "${1:?usage: check-package-install.sh PACKAGE.deb}")
[ -f "$deb" ] || { echo "check-package-install: no such file: $deb (make package builds it)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "check-package-install: run as root (it boots a container)"; exit 1; }
command -v systemd-nspawn >/dev/null || apt-get install -y -q systemd-container >/dev/null
ok() { echo "ok: $*"; }
fail() { echo "FAILED: $*"; [ -n "${log:-}" ] && tail -20 "$log"; exit 1; }

work=$(mktemp -d)
log=$work/boot.log
port=47017
cleanup() {
  [ -n "${spawn:-}" ] && kill "$spawn" 2>/dev/null && sleep 2
  [ -n "${shoe:-}" ] && kill "$shoe" 2>/dev/null
  umount "$work/merged" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work"/{upper,work,merged}
mount -t overlay overlay -o "lowerdir=/,upperdir=$work/upper,workdir=$work/work" "$work/merged"

# A barcode shoe behind a device server: the shuffle card, then the 52 cards one by one.
python3 - "$port" <<'EOF' &
import socket, sys, threading, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4)
def serve(c):
    try:
        c.sendall(b"511\r")
        for i in range(1, 53):
            time.sleep(0.3); c.sendall(b"%03d\r" % i)
        time.sleep(600)
    except OSError:
        pass
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
shoe=$!

uuid=$(tr -d - </proc/sys/kernel/random/uuid)
systemd-nspawn -D "$work/merged" -b -M pitwatch-install-check --register=no --keep-unit \
  --uuid="$uuid" >"$log" 2>&1 </dev/null &
spawn=$!
for _ in $(seq 1 60); do
  init=$(pgrep -P "$(pgrep -P "$spawn" | head -1)" systemd 2>/dev/null | head -1 || true)
  [ -z "$init" ] && init=$(pgrep -P "$spawn" systemd | head -1 || true)
  if [ -n "$init" ] && nsenter -t "$init" -a systemctl is-system-running 2>/dev/null | grep -qE 'running|degraded'; then
    break
  fi
  sleep 1
done
[ -n "${init:-}" ] || fail "the container did not boot"
inside() { nsenter -t "$init" -a "$@"; }
ok "booted with systemd as PID 1 ($(inside systemctl is-system-running || true))"

inside sh -c 'dpkg -P pitwatch >/dev/null 2>&1 || true; rm -rf /var/lib/pitwatch /etc/pitwatch
  deluser --system pitwatch >/dev/null 2>&1 || true'
inside sh -c "install -d /etc/pitwatch && cat > /etc/pitwatch/pit.toml" <<EOF
[site]
name = "Install Check Pit"

[[table]]
name = "MINI-7"
game = "baccarat"
rules = "nz-baccarat"
device = { protocol = "barcode" }
link = { kind = "tcp", address = "127.0.0.1:$port" }
EOF
inside dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
ok "installed: $(inside dpkg-query -W -f '${Package} ${Version} ${Status}' pitwatch)"
groups=$(inside id -nG pitwatch) || fail "no user pitwatch"
grep -qw dialout <<<"$groups" || fail "pitwatch is not in dialout ($groups)"
[ "$(inside getent passwd pitwatch | cut -d: -f7)" = /usr/sbin/nologin ] || fail "pitwatch can log in"
ok "system user pitwatch, no login, groups: $groups"
[ "$(inside stat -c '%U:%G %a' /var/lib/pitwatch)" = "pitwatch:pitwatch 750" ] || fail "/var/lib/pitwatch: $(inside stat -c '%U:%G %a' /var/lib/pitwatch)"
ok "/var/lib/pitwatch pitwatch:pitwatch 750"
[ "$(inside systemctl is-enabled pitwatch-monitor)" = enabled ] || fail "the unit is not enabled"

journal() { inside journalctl -u pitwatch-monitor --no-pager -o cat; }
wait_for() { # what, pattern
  for _ in $(seq 1 30); do journal | grep -qE "$2" && return 0; sleep 1; done
  journal | tail -20; fail "$1"
}
wait_for "the monitor reading the shoe" 'MINI-7 +connected: tcp'
wait_for "a round recorded" 'round +1:'
[ "$(inside ps -o user= -C pitwatch | head -1)" = pitwatch ] || fail "the monitor does not run as pitwatch"
ok "enabled and started on install, running as pitwatch, recording: $(journal | grep -m1 -E 'round +1:' | sed 's/^ *//')"

inside systemctl reload pitwatch-monitor
wait_for "the reload" 'pit definition reloaded'
ok "systemctl reload: the pit definition read again"
inside systemctl stop pitwatch-monitor
wait_for "an orderly stop" 'stopped; everything is on record'
ok "systemctl stop: stopped in order"

inside systemctl start pitwatch-monitor
sleep 2
inside systemctl kill -s KILL pitwatch-monitor
wait_for "a restart after the kill" 'restart counter is at 1|Scheduled restart'
for _ in $(seq 1 20); do [ "$(inside systemctl is-active pitwatch-monitor)" = active ] && break; sleep 1; done
[ "$(inside systemctl is-active pitwatch-monitor)" = active ] || fail "not running again after a kill"
ok "killed (SIGKILL): restarted by systemd"
inside systemctl stop pitwatch-monitor
verdict=$(inside runuser -u pitwatch -- env PITWATCH_KEY=/var/lib/pitwatch/signing.key \
  pitwatch verify --db /var/lib/pitwatch/pitwatch.db 2>&1 | tail -1)
[ "$verdict" = intact ] || fail "the record after the kill: $verdict"
ok "the record verifies: $verdict"

inside dpkg -r pitwatch >/dev/null 2>&1 || fail "dpkg -r"
[ "$(inside systemctl is-enabled pitwatch-monitor 2>/dev/null || true)" != enabled ] || fail "still enabled after removal"
inside dpkg -P pitwatch >"$work/purge.log" 2>&1 || fail "dpkg -P"
inside test -f /var/lib/pitwatch/pitwatch.db || fail "purge deleted the record"
inside test -f /var/lib/pitwatch/signing.key || fail "purge deleted the signing key"
ok "removed and purged: the unit gone, the record and its key kept ($(grep -m1 kept "$work/purge.log"))"
echo "check-package-install: all checks passed"
