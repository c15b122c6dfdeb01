#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bring up (or report on) the Docker engine that boxcert's tests and demo use.
#   engine.sh start   start containerd + dockerd (runc, runsc, mutual-TLS listener)
#                     unless an engine already answers; build boxcert-session:1;
#                     print the session image ID on stdout
#   engine.sh stop    stop only what 'start' started
#   engine.sh status  say whether an engine answers and who started it
#   engine.sh env     print shell assignments for the TLS endpoint (for tests)
set -euo pipefail

STATE=${BOXCERT_ENGINE_STATE:-/var/lib/boxcert-engine}
DOCKER=${BOXCERT_DOCKER:-/usr/bin/docker}   # Debian's 20.10 client, named on purpose
IMAGE=boxcert-session:1
TLS_ADDR=127.0.0.1:2376
CONTAINERD_SOCK=/run/containerd/containerd.sock

host=${DOCKER_HOST:-unix:///var/run/docker.sock}
case "$host" in
  unix://*) SOCK=${host#unix://} ;;
  *) echo "engine.sh: DOCKER_HOST must be a unix:// socket for this script (got $host)" >&2; exit 2 ;;
esac

log() { printf 'engine.sh: %s\n' "$*" >&2; }

ping_ok() {
  [ -S "$SOCK" ] && [ "$(curl -s --max-time 2 --unix-socket "$SOCK" http://engine/_ping 2>/dev/null)" = "OK" ]
}

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

pid_is() { # pid_is PID NAME: the live process PID runs the program NAME
  alive "$1" && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

make_tls() {
  local d=$STATE/tls
  [ -f "$d/client/key.pem" ] && [ -f "$d/server-key.pem" ] && return 0
  rm -rf "$d"; mkdir -p "$d/client"; chmod 700 "$d"
  (
    cd "$d"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
      -subj "/CN=boxcert test engine CA" -keyout ca-key.pem -out ca.pem 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -subj "/CN=localhost" -keyout server-key.pem -out server.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
      -extfile server.ext -out server-cert.pem 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -subj "/CN=boxcert test client" -keyout client/key.pem -out client.csr 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
      -extfile client.ext -out client/cert.pem 2>/dev/null
    cp ca.pem client/ca.pem
    chmod 600 ./*-key.pem client/key.pem
    rm -f ./*.csr ./*.ext
  )
}

start_containerd() {
  if pgrep -x containerd >/dev/null 2>&1 && [ -S "$CONTAINERD_SOCK" ]; then
    return 0 # someone's containerd is running: use it
  fi
  if [ -e "$CONTAINERD_SOCK" ]; then
    log "removing stale $CONTAINERD_SOCK"
    rm -f "$CONTAINERD_SOCK"
  fi
  setsid containerd >"$STATE/containerd.log" 2>&1 </dev/null &
  echo $! >"$STATE/containerd.pid"
  for _ in $(seq 1 100); do
    [ -S "$CONTAINERD_SOCK" ] && return 0
    alive "$(cat "$STATE/containerd.pid")" || break
    sleep 0.1
  done
  log "containerd did not start; see $STATE/containerd.log"
  tail -n 5 "$STATE/containerd.log" >&2 || true
  exit 3
}

start_dockerd() {
  local pidfile=/var/run/docker.pid
  if [ -f "$pidfile" ] && ! pid_is "$(cat "$pidfile" 2>/dev/null)" dockerd; then
    log "removing stale $pidfile"
    rm -f "$pidfile"
  fi
  if [ -S "$SOCK" ] && ! pgrep -x dockerd >/dev/null 2>&1; then
    rm -f "$SOCK"
  fi
  cat >"$STATE/daemon.json" <<JSON
{"runtimes":{"runsc":{"path":"/usr/bin/runsc","runtimeArgs":["--network=none","--oci-seccomp"]},"runsc-plain":{"path":"/usr/bin/runsc","runtimeArgs":["--network=none"]}}}
JSON
  setsid dockerd --containerd="$CONTAINERD_SOCK" --config-file "$STATE/daemon.json" \
    --pidfile "$pidfile" -H "unix://$SOCK" -H "tcp://$TLS_ADDR" \
    --tlsverify --tlscacert "$STATE/tls/ca.pem" --tlscert "$STATE/tls/server-cert.pem" \
    --tlskey "$STATE/tls/server-key.pem" >"$STATE/dockerd.log" 2>&1 </dev/null &
  echo $! >"$STATE/dockerd.pid"
  for _ in $(seq 1 300); do
    ping_ok && return 0
    alive "$(cat "$STATE/dockerd.pid")" || break
    sleep 0.2
  done
  log "dockerd did not answer /_ping; see $STATE/dockerd.log"
  tail -n 5 "$STATE/dockerd.log" >&2 || true
  exit 3
}

build_image() {
  if ! DOCKER_HOST="unix://$SOCK" "$DOCKER" image inspect "$IMAGE" >/dev/null 2>&1; then
    local root
    root=$(mktemp -d)
    mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/workspace" "$root/root" \
      "$root/proc" "$root/sys" "$root/dev"
    chmod 1777 "$root/tmp"
    cp /bin/busybox "$root/bin/busybox"
    for a in sh sleep cat id ls echo true false mkdir touch grep head env; do
      ln -s busybox "$root/bin/$a"
    done
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65532:65532:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnobody:x:65532:\n' >"$root/etc/group"
    tar -C "$root" -c . | DOCKER_HOST="unix://$SOCK" "$DOCKER" import \
      -c 'CMD ["/bin/sh"]' - "$IMAGE" >/dev/null
    rm -rf "$root"
  fi
  DOCKER_HOST="unix://$SOCK" "$DOCKER" image inspect --format '{{.Id}}' "$IMAGE"
}

case "${1:-}" in
  start)
    mkdir -p "$STATE"
    if ping_ok; then
      log "an engine already answers at $SOCK"
    else
      [ "$(id -u)" -eq 0 ] || { log "starting an engine needs root"; exit 3; }
      make_tls
      start_containerd
      start_dockerd
      log "engine started (logs in $STATE)"
    fi
    build_image
    ;;
  stop)
    for n in dockerd containerd; do
      f=$STATE/$n.pid
      [ -f "$f" ] || continue
      p=$(cat "$f")
      if pid_is "$p" "$n"; then
        kill "$p"
        for _ in $(seq 1 150); do alive "$p" || break; sleep 0.2; done
      fi
      rm -f "$f"
    done
    ;;
  status)
    if ping_ok; then
      echo "engine: answering at unix://$SOCK"
      if [ -f "$STATE/dockerd.pid" ] && pid_is "$(cat "$STATE/dockerd.pid")" dockerd; then
        echo "started by: engine.sh (pid $(cat "$STATE/dockerd.pid"))"
      else
        echo "started by: someone else"
      fi
    else
      echo "engine: not answering at unix://$SOCK"
      exit 1
    fi
    ;;
  env)
    echo "BOXCERT_TLS_HOST=tcp://$TLS_ADDR"
    echo "BOXCERT_TLS_CERT_PATH=$STATE/tls/client"
    ;;
  *)
    echo "usage: engine.sh start|stop|status|env" >&2
    exit 2
    ;;
esac
