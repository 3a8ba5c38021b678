#!/usr/bin/env bash
# Inspects the Debian package `make package` builds, without installing it:
#   scripts/check-package.sh target/release/bundle/deb/Pitwatch_0.1.0_amd64.deb
# Checks the control fields and maintainer scripts (dpkg-deb -I), the files (dpkg-deb -c): both
# binaries, the desktop entry (desktop-file-validate when installed), the icons, the systemd unit
# (systemd-analyze verify when installed, on the unpacked copy), then unpacks the package into a
# throwaway root (dpkg -x) and runs the unpacked `pitwatch --help` and `pitwatch monitor --help`.
# Prints each check; exits 1 at the first that fails.
set -euo pipefail
deb=${1:?usage: check-package.sh PACKAGE.deb}
[ -f "$deb" ] || { echo "check-package: no such file: $deb (make package builds it)"; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
ok() { echo "ok: $*"; }
fail() { echo "FAILED: $*"; exit 1; }

info=$(dpkg-deb -I "$deb")
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = pitwatch ] || fail "Package is '$(field Package)', not pitwatch"
depends=$(field Depends)
for dep in libwebkit2gtk-4.1-0 libgtk-3-0 adduser; do
  grep -qw -- "$dep" <<<"$depends" || fail "Depends ($depends) lacks $dep"
done
ok "control: package $(field Package) $(field Version) $(field Architecture), Depends: $depends"
for script in postinst prerm postrm; do
  grep -qE "^ +[0-9]+ bytes, +[0-9]+ lines +\* +$script " <<<"$info" || fail "no executable $script"
done
ok "maintainer scripts: postinst prerm postrm (executable)"

list=$(dpkg-deb -c "$deb")
has() { grep -qE " (\./)?$1\$" <<<"$list" || fail "the package has no /$1"; }
for path in usr/bin/pitwatch-desktop usr/bin/pitwatch usr/share/applications/Pitwatch.desktop \
  usr/lib/systemd/system/pitwatch-monitor.service usr/share/icons/hicolor/128x128/apps/pitwatch-desktop.png \
  usr/share/icons/hicolor/32x32/apps/pitwatch-desktop.png usr/share/doc/pitwatch/examples/pit.toml; do
  has "$path"
done
ok "files: both binaries, desktop entry, unit, icons, example pit definition"
if grep -q '^-rws\|^-r.s' <<<"$list"; then fail "a setuid or setgid file"; fi
if grep -qE ' (\./)?etc/' <<<"$list"; then fail "files under /etc (not marked as conffiles)"; fi
ok "nothing setuid, nothing shipped under /etc"

dpkg -x "$deb" "$root"
# The scripts as dpkg runs them: syntax, and nothing that starts the service on a bare install.
for script in postinst prerm postrm; do
  dpkg-deb --ctrl-tarfile "$deb" | tar -xO "$script" >"$root/$script"
  sh -n "$root/$script" || fail "$script does not parse"
done
grep -q 'adduser --system --group' "$root/postinst" || fail "postinst makes no system user"
grep -q 'adduser pitwatch dialout' "$root/postinst" || fail "postinst does not add pitwatch to dialout"
grep -q '/etc/pitwatch/pit.toml' "$root/postinst" || fail "postinst enables the service unconditionally"
ok "maintainer scripts parse; postinst: system user in dialout, enabled only with a pit definition"

desktop=$root/usr/share/applications/Pitwatch.desktop
grep -qx 'Exec=pitwatch-desktop %f' "$desktop" || fail "desktop entry's Exec: $(grep ^Exec "$desktop")"
grep -qx 'Icon=pitwatch-desktop' "$desktop" || fail "desktop entry's Icon: $(grep ^Icon "$desktop")"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$desktop" || fail "desktop-file-validate"
  ok "desktop entry valid (desktop-file-validate)"
else
  echo "skipped: desktop-file-validate (apt-get install desktop-file-utils)"
fi
file "$root/usr/share/icons/hicolor/128x128/apps/pitwatch-desktop.png" | grep -q '128 x 128' ||
  fail "the 128x128 icon is not 128 x 128"
ok "desktop entry: Exec and Icon name the installed binary and icon"

unit=$root/usr/lib/systemd/system/pitwatch-monitor.service
for line in 'User=pitwatch' 'SupplementaryGroups=dialout' 'NoNewPrivileges=yes' 'ProtectSystem=strict' \
  'ProtectHome=yes' 'PrivateTmp=yes' 'StateDirectory=pitwatch' 'ConfigurationDirectory=pitwatch' \
  'DevicePolicy=closed' 'DeviceAllow=char-ttyUSB rw' 'KillSignal=SIGINT' 'Restart=on-failure' \
  'ExecReload=/bin/kill -HUP $MAINPID' \
  'ExecStart=/usr/bin/pitwatch monitor --config /etc/pitwatch/pit.toml --db /var/lib/pitwatch/pitwatch.db'; do
  grep -qxF -- "$line" "$unit" || fail "the unit lacks '$line'"
done
if command -v systemd-analyze >/dev/null; then
  # The unit names /usr/bin/pitwatch; verify it against the unpacked binary at that path.
  sed "s|/usr/bin/pitwatch|$root/usr/bin/pitwatch|" "$unit" >"$root/pitwatch-monitor.service"
  out=$(systemd-analyze verify "$root/pitwatch-monitor.service" 2>&1) || fail "systemd-analyze verify: $out"
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
  ok "unit: runs as pitwatch in dialout, hardened; systemd-analyze verify clean"
else
  echo "skipped: systemd-analyze verify (no systemd)"
fi

for bin in pitwatch pitwatch-desktop; do
  file -L "$root/usr/bin/$bin" | grep -q 'ELF 64-bit.*executable\|ELF 64-bit.*shared object' || fail "$bin is not an ELF executable"
  if file -L "$root/usr/bin/$bin" | grep -q 'with debug_info'; then fail "$bin is not stripped of debug info"; fi
done
"$root/usr/bin/pitwatch" --help | grep -q 'monitor' || fail "the unpacked pitwatch --help does not list monitor"
"$root/usr/bin/pitwatch" monitor --help | grep -q -- '--config' || fail "pitwatch monitor --help has no --config"
ok "unpacked into a throwaway root: pitwatch --help and pitwatch monitor --help run"
echo "check-package: $deb passed ($(du -h "$deb" | cut -f1), installed $(field Installed-Size) kB)"
