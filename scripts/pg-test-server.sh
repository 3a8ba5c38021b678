#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks (issue 16): Debian's PostgreSQL 15 (or
# later), in a temporary folder, on a free port of 127.0.0.1, trusting local connections. Nothing
# outside the folder is touched.
#
#   scripts/pg-test-server.sh start        prints two lines: the URL, then the folder
#   scripts/pg-test-server.sh start-tls    the same with TLS (issue 25): a throwaway CA and a
#                                          server certificate for `localhost` made with openssl in
#                                          the folder (ca.crt; other-ca.crt is a CA that signed
#                                          nothing), TCP only over TLS with SCRAM-SHA-256 (the
#                                          superuser's password in FOLDER/password, mode 600),
#                                          the Unix socket in the folder trusted for tests' psql
#   scripts/pg-test-server.sh stop DIR     stops the cluster (fast) and removes DIR
#   scripts/pg-test-server.sh down DIR     stops it but keeps DIR (a link cut, for tests)
#   scripts/pg-test-server.sh up DIR       starts it again on the same port
#   scripts/pg-test-server.sh available    exit 0 when PostgreSQL is installed, 1 (saying why) if not
#
# Tests run the cluster with fsync off (nothing in it outlives the test); PITWATCH_PG_FSYNC=on
# keeps PostgreSQL's durability, for benchmarks.
#
# initdb and postgres refuse to run as root: as root, the cluster runs as the `postgres` account
# the Debian package creates (or `nobody`).
set -euo pipefail

find_bin() {
  local name=$1
  if command -v "$name" >/dev/null 2>&1; then
    command -v "$name"
    return 0
  fi
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/$name" ]; then
      echo "$dir/$name"
      return 0
    fi
  done
  return 1
}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$owner" -- "$@"
  else
    "$@"
  fi
}

owner=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
  if id postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
fi

need() {
  initdb=$(find_bin initdb) || { echo "PostgreSQL is not installed (no initdb); run scripts/install-system-deps.sh" >&2; exit 1; }
  pg_ctl=$(find_bin pg_ctl) || { echo "PostgreSQL is not installed (no pg_ctl)" >&2; exit 1; }
}

free_port() {
  local port
  for _ in $(seq 1 200); do
    port=$(( 20000 + RANDOM % 40000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "no free port found" >&2
  return 1
}

start_cluster() {
  local dir=$1 port tls=""
  port=$(cat "$dir/port")
  if [ -f "$dir/server.crt" ]; then
    tls="-c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key -c password_encryption=scram-sha-256"
  fi
  as_owner "$pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=${PITWATCH_PG_FSYNC:-off} -c max_connections=200 $tls" \
    start >/dev/null
}

# A throwaway CA, a server certificate it signs for localhost, and another CA that signed nothing.
make_certificates() {
  local dir=$1
  command -v openssl >/dev/null 2>&1 || { echo "openssl is not installed" >&2; return 1; }
  (
    cd "$dir"
    for ca in ca other-ca; do
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj "/CN=pitwatch throwaway $ca" -keyout "$ca.key" -out "$ca.crt" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    done
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
      -keyout server.key -out server.csr
    printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
      -extfile server.ext -out server.crt
    chmod 600 server.key ca.key other-ca.key
    if [ "$(id -u)" -eq 0 ]; then chown "$owner" server.key server.crt; fi
  ) >"$dir/certificates.log" 2>&1 || { cat "$dir/certificates.log" >&2; return 1; }
}

case "${1:-}" in
  available)
    need
    exit 0
    ;;
  start|start-tls)
    need
    dir=$(mktemp -d /tmp/pitwatch-pg.XXXXXX)
    chmod 0755 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown "$owner" "$dir"; fi
    if [ "$1" = start-tls ]; then
      make_certificates "$dir" || { rm -rf "$dir"; exit 1; }
      head -c 18 /dev/urandom | base64 | tr '+/' '._' >"$dir/password"
      chmod 644 "$dir/password"
      as_owner "$initdb" -D "$dir/data" -U pitwatch --auth-local=trust --auth-host=scram-sha-256 \
        --pwfile="$dir/password" -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
      chmod 600 "$dir/password"
      # TCP only over TLS, with SCRAM; the folder's Unix socket trusted (the tests' psql).
      printf 'local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\nhostssl all all ::1/128 scram-sha-256\n' \
        >"$dir/data/pg_hba.conf"
    else
      as_owner "$initdb" -D "$dir/data" -U pitwatch -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
    fi
    # Two tries: another process may take the port between the check and the start.
    for attempt in 1 2 3; do
      free_port >"$dir/port"
      if start_cluster "$dir" 2>>"$dir/start.log"; then
        if [ "$1" = start-tls ]; then
          echo "postgres://pitwatch@localhost:$(cat "$dir/port")/postgres?sslmode=verify-full&sslrootcert=$dir/ca.crt"
        else
          # Plaintext, which Pitwatch takes only on loopback and only when asked for.
          echo "postgres://pitwatch@127.0.0.1:$(cat "$dir/port")/postgres?sslmode=disable"
        fi
        echo "$dir"
        exit 0
      fi
    done
    cat "$dir/server.log" "$dir/start.log" >&2 || true
    rm -rf "$dir"
    exit 1
    ;;
  down)
    need
    as_owner "$pg_ctl" -D "${2:?folder}/data" -m fast -w stop >/dev/null
    ;;
  up)
    need
    start_cluster "${2:?folder}"
    ;;
  stop)
    need
    dir=${2:?folder}
    case "$dir" in /tmp/pitwatch-pg.*) ;; *) echo "refusing to remove $dir (not made by this script)" >&2; exit 1 ;; esac
    as_owner "$pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *)
    sed -n '2,18p' "$0" >&2
    exit 2
    ;;
esac
