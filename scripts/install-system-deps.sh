#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Pitwatch needs to build, run and test the desktop app, if any
# is missing. Uses sudo when not root. The list is the one in ../shared/docs/machine-notes.md plus
# poppler-utils (PDF reports are checked as images), LibreOffice Calc without a GUI (the exported
# CSVs are opened in a real spreadsheet: no cell may become a formula) and PostgreSQL (the central
# record of issue 16: its tests start a throwaway cluster with scripts/pg-test-server.sh;
# pg_dump/psql restore it; openssl makes the throwaway CA and server certificate of its TLS tests,
# issue 25); sqlite3 reads the record in the end-to-end tests (a device's time offline).
set -euo pipefail

packages=(
  build-essential pkg-config libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libudev-dev
  xvfb xauth webkit2gtk-driver socat imagemagick x11-apps poppler-utils
  postgresql postgresql-client openssl libreoffice-calc-nogui sqlite3
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing system packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
