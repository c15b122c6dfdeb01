# SPDX-License-Identifier: Apache-2.0
# Shared helpers for shell tests (sourced). TAP output; exit 77 = skipped.
#   ok NAME CMD...          run CMD, pass when it exits 0
#   expect_rc N NAME CMD... run CMD, pass when it exits N (stdout/stderr in $OUT/$ERR files)
#   like FILE REGEX NAME    FILE contains a line matching REGEX (grep -E)
#   done_testing            print the plan, exit 1 on any failure (or when nothing ran)
#   skip_all / skip_one     a test that cannot run: exit 77 / "# SKIP", a failure under CI
#   not_applicable FACT N   a check that cannot apply on this host (tests/not-applicable.txt)
# Engine helpers:
#   need_engine             skip (77) without an engine, fail under BOXCERT_REQUIRE_ENGINE=1
#   session NAME ARGS...    docker run -d a labelled session of boxcert-session:1; echoes its Id
#   cleanup_sessions        remove exactly the containers this run created (trap on EXIT)
set -u
BOXCERT_SOURCE_DIR=${BOXCERT_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BOXCERT_BIN=${BOXCERT_BIN:-$BOXCERT_SOURCE_DIR/build/bin}
BOXCERT=$BOXCERT_BIN/boxcert
DOCKER=${BOXCERT_DOCKER:-/usr/bin/docker}
SESSION_IMAGE=boxcert-session:1
RUN_ID=${RUN_ID:-$(basename "$0" .sh)-$$-$(date +%s)}
T=$(mktemp -d "${TMPDIR:-/tmp}/boxcert-test.XXXXXX")
OUT=$T/out
ERR=$T/err
tap_n=0
tap_failed=0

_tap() { # _tap STATUS NAME
  tap_n=$((tap_n + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $tap_n - $2"
  else
    tap_failed=$((tap_failed + 1))
    echo "not ok $tap_n - $2"
    echo "#   at ${BASH_SOURCE[2]:-?}:${BASH_LINENO[1]:-?}"
    if [ -s "$ERR" ]; then sed 's/^/#   stderr: /' "$ERR" | head -n 10; fi
  fi
}

ok() {
  local name=$1; shift
  "$@" >"$OUT" 2>"$ERR"
  _tap $? "$name"
}

expect_rc() {
  local want=$1 name=$2 rc; shift 2
  "$@" >"$OUT" 2>"$ERR"; rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "#   exit $rc, want $want"
    _tap 1 "$name"
  else
    _tap 0 "$name"
  fi
}

fails() { # fails NAME CMD...: CMD exits non-zero
  local name=$1; shift
  if "$@" >"$OUT" 2>"$ERR"; then echo "#   exited 0"; _tap 1 "$name"; else _tap 0 "$name"; fi
}

like() {
  if grep -E -q -- "$2" "$1"; then _tap 0 "$3"; else
    echo "#   no line of $(basename "$1") matches: $2"; sed 's/^/#   | /' "$1" | head -n 15; _tap 1 "$3"; fi
}

unlike() {
  if grep -E -q -- "$2" "$1"; then echo "#   a line of $(basename "$1") matches: $2"; _tap 1 "$3"; else _tap 0 "$3"; fi
}

is() { # is GOT WANT NAME
  if [ "$1" = "$2" ]; then _tap 0 "$3"; else echo "#   got '$1', want '$2'"; _tap 1 "$3"; fi
}

done_testing() {
  echo "1..$tap_n"
  rm -rf "$T"
  if [ "$tap_n" -eq 0 ]; then echo "# no test ran"; exit 1; fi
  [ "$tap_failed" -eq 0 ] || { echo "# $tap_failed of $tap_n failed"; exit 1; }
  exit 0
}

# Under CI (CI=true, which .ci/run exports, or BOXCERT_REQUIRE_ENGINE=1) a skip is a
# failure: what a test needs, the project's scripts install and start (scripts/deps.sh,
# scripts/engine.sh). The one exception is a check that cannot apply on this host
# (not_applicable), listed in tests/not-applicable.txt with the make test-hosts test that
# covers it.
_strict() { [ "${CI:-}" = true ] || [ "${BOXCERT_REQUIRE_ENGINE:-0}" = 1 ]; }

skip_all() {
  if _strict; then
    echo "not ok 1 - skipped, and a skip fails under CI: $*"
    echo "1..1"
    rm -rf "$T"
    exit 1
  fi
  echo "1..0 # SKIP $*"
  rm -rf "$T"
  exit 77
}

skip_one() { # skip_one REASON: the next test could not run here (a failure under CI)
  if _strict; then
    _tap 1 "skipped, and a skip fails under CI: $*"
  else
    tap_n=$((tap_n + 1))
    echo "ok $tap_n # SKIP $*"
  fi
}

not_applicable() { # not_applicable FACT NAME: NAME cannot apply on this host, read by FACT
  tap_n=$((tap_n + 1))
  echo "ok $tap_n - $2 # n/a: $1"
}

# need_testhost [env]: the test host of scripts/testhost.sh runs (else skip; a failure under
# BOXCERT_REQUIRE_TESTHOST=1); TESTHOST names the script, g runs a shell line in the guest as
# root, gv gives its output; the guest's clock is set to this machine's. With "env":
# DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH point the docker client (and boxcert)
# here at the guest's engine over mutual TLS.
need_testhost() {
  TESTHOST=$BOXCERT_SOURCE_DIR/scripts/testhost.sh
  if ! bash "$TESTHOST" status >/dev/null 2>&1; then
    if [ "${BOXCERT_REQUIRE_TESTHOST:-0}" = "1" ]; then
      echo "not ok 1 - test host required (BOXCERT_REQUIRE_TESTHOST=1) but none runs"
      echo "1..1"; exit 1
    fi
    skip_all "no test host (scripts/testhost.sh start)"
  fi
  if [ "${1:-}" = env ]; then
    eval "$(bash "$TESTHOST" env)"
    export DOCKER_HOST DOCKER_TLS_VERIFY DOCKER_CERT_PATH
  fi
  g() { bash "$TESTHOST" ssh -- "$@"; }     # a command in the guest, as root
  gv() { g "$@" 2>/dev/null | tr -d '\r'; } # its output
  # the guest's clock falls behind under emulation (some 10 minutes in 30): set it again
  g "date -s @$(date +%s)" >/dev/null 2>&1
  declare -gA GARGS=() GCMD=()
}

# Sessions in the test host, started in the background while a test goes on (each `docker
# run` costs seconds of the emulated CPUs, and a test that starts one, waits and checks leaves
# them idle in between):
#   glane PREFIX NAME...  start PREFIX-NAME for each NAME, one after another, in the guest in
#                         the background: `docker run -d --name PREFIX-NAME ${GARGS[NAME]}
#                         boxcert-session:1 ${GCMD[NAME]:-sleep 600}` (both are shell words,
#                         read by the guest's shell); its exit code into /tmp/PREFIX/st/NAME.rc
#   gstarted PREFIX NAME  wait (at most 10 minutes) until that `docker run` ended; succeeds
#                         when it exited 0, else prints its words and fails
#   grm NAME...           docker rm -f NAME..., in the guest in the background
glane_n=0
glane() {
  local p=$1 n script=""; shift
  for n in "$@"; do
    script+="docker run -d --name $p-$n ${GARGS[$n]:-} $SESSION_IMAGE ${GCMD[$n]:-sleep 600} >/tmp/$p/st/$n.out 2>&1; echo \$? >/tmp/$p/st/$n.rc.new; mv /tmp/$p/st/$n.rc.new /tmp/$p/st/$n.rc"$'\n'
  done
  glane_n=$((glane_n + 1))
  printf '%s' "$script" | g "mkdir -p /tmp/$p/st && cat >/tmp/$p/st/lane$glane_n.sh &&
    { setsid sh /tmp/$p/st/lane$glane_n.sh </dev/null >/dev/null 2>&1 & }"
}
gstarted() {
  local rc
  rc=$(gv "for i in \$(seq 1 1200); do [ -s /tmp/$1/st/$2.rc ] && exec cat /tmp/$1/st/$2.rc; sleep 0.5; done; echo 124")
  [ "$rc" = 0 ] && return 0
  g "cat /tmp/$1/st/$2.out" >&2; echo "docker run of $1-$2: exit $rc" >&2; return 1
}
grm() { g "setsid docker rm -f $* </dev/null >/dev/null 2>&1 &"; }

need_engine() {
  local sock=${DOCKER_HOST:-unix:///var/run/docker.sock}
  sock=${sock#unix://}
  if [ "$(curl -s --max-time 3 --unix-socket "$sock" http://engine/_ping 2>/dev/null)" != "OK" ] \
     || ! "$DOCKER" image inspect "$SESSION_IMAGE" >/dev/null 2>&1; then
    if [ "${BOXCERT_REQUIRE_ENGINE:-0}" = "1" ]; then
      echo "not ok 1 - engine required (BOXCERT_REQUIRE_ENGINE=1) but none answers at $sock with $SESSION_IMAGE"
      echo "1..1"
      exit 1
    fi
    skip_all "no engine at $sock (scripts/engine.sh start)"
  fi
  trap cleanup_sessions EXIT
}

# cg_dir PID CONTROLLER: the folder of PID's cgroup (v1: in CONTROLLER's hierarchy; v2: the
# unified one)
cg_dir() {
  if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
    echo "/sys/fs/cgroup$(sed -n 's/^0:://p' "/proc/$1/cgroup")"
  else
    echo "/sys/fs/cgroup/$2$(awk -F: -v c="$2" '$2 ~ "(^|,)" c "(,|$)" {print $3}' "/proc/$1/cgroup")"
  fi
}
# pids_in_force PID: the smallest pids.max from its cgroup up to the root, or max (the limit the
# kernel applies: systemd's TasksMax on a session's scope counts)
pids_in_force() {
  local d v min=max
  d=$(cg_dir "$1" pids)
  while [ -d "$d" ]; do
    v=$(cat "$d/pids.max" 2>/dev/null || echo max)
    [ "$v" != max ] && { [ "$min" = max ] || [ "$v" -lt "$min" ]; } && min=$v
    [ "$d" = /sys/fs/cgroup ] || [ "$d" = /sys/fs/cgroup/pids ] && break
    d=$(dirname "$d")
  done
  echo "$min"
}

# zoo_run NAME ARGS... [-- CMD...]: session NAME started, its Id into $T/NAME.id (a line on
# stdout when it did not start); BOXCERT_ZOO_JOBS at a time (the test host: 2), in the
# background, else (unset or 1) one after another. zoo_wait before reading an Id: it waits for
# the sessions' starts alone (a script's other background jobs are not counted).
ZOO_PIDS=()
zoo_run() {
  local name=$1 jobs=${BOXCERT_ZOO_JOBS:-1}; shift
  if [ "$jobs" -gt 1 ]; then
    while [ "$(for p in "${ZOO_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && echo; done | wc -l)" -ge "$jobs" ]; do
      wait -n "${ZOO_PIDS[@]}" 2>/dev/null || sleep 0.2
    done
    ( session "$name" "$@" >"$T/$name.id" 2>"$T/$name.err" ||
      echo "# $name: $(head -c 300 "$T/$name.err")" ) &
    ZOO_PIDS+=($!)
  else
    session "$name" "$@" >"$T/$name.id" 2>"$T/$name.err" || echo "# $name: $(head -c 300 "$T/$name.err")"
  fi
}
zoo_wait() { [ ${#ZOO_PIDS[@]} -gt 0 ] && wait "${ZOO_PIDS[@]}"; ZOO_PIDS=(); return 0; }

# collect_each KEY DIR NAME...: one `ok "collect NAME"` line per session (its Id in $T/NAME.id),
# the certificate in DIR/NAME.intoto.json, BOXCERT_COLLECT_JOBS collects at a time (default
# 1; the test host: 2, where one collect keeps one of its two emulated CPUs busy). Only for
# sessions that share no namespace with one another: a collector's threads join its session's
# namespaces for a moment, and another collector of a session in those namespaces would count
# them. The lines come in the order of the names, whatever order the collects end in.
collect_each() {
  local key=$1 dir=$2 jobs=${BOXCERT_COLLECT_JOBS:-1} n pids=(); shift 2
  mkdir -p "$T/each"
  for n in "$@"; do
    if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    ( "$BOXCERT" collect "$(cat "$T/$n.id")" --key "$key" --out "$dir/$n.intoto.json" \
        >"$T/each/$n.out" 2>"$T/each/$n.err"; echo $? >"$T/each/$n.rc" ) &
    pids+=($!)
  done
  wait "${pids[@]}"
  for n in "$@"; do
    cp "$T/each/$n.out" "$OUT"; cp "$T/each/$n.err" "$ERR"
    _tap "$(cat "$T/each/$n.rc" 2>/dev/null || echo 1)" "collect $n"
  done
}

# cpid ID: the engine's State.Pid of container ID, asked of the API with curl where the engine
# is a unix socket (a docker CLI run costs half a second of an emulated CPU in the test host:
# docs/testhost.md), else with docker inspect
cpid() {
  local sock=${DOCKER_HOST:-unix:///var/run/docker.sock}
  if [ "${sock#unix://}" != "$sock" ] && command -v curl >/dev/null 2>&1; then
    curl -sf --unix-socket "${sock#unix://}" "http://docker/containers/$1/json" |
      grep -o '"Pid":[0-9]*' | head -n 1 | cut -d: -f2
  else
    "$DOCKER" inspect --format '{{.State.Pid}}' "$1"
  fi
}

session() { # session NAME [docker run args...] -- [command...]
  local name=$1; shift
  local args=() cmd=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  cmd=("$@")
  # (BOXCERT_SESSION_SECONDS: longer where starting a zoo takes more than ten minutes, the
  # emulated test host)
  [ ${#cmd[@]} -gt 0 ] || cmd=(sleep "${BOXCERT_SESSION_SECONDS:-600}")
  "$DOCKER" run -d --label "boxcert.test=$RUN_ID" --name "bxt-$RUN_ID-$name" "${args[@]}" \
    "$SESSION_IMAGE" "${cmd[@]}"
}

cleanup_sessions() {
  local ids
  ids=$("$DOCKER" ps -aq --filter "label=boxcert.test=$RUN_ID" 2>/dev/null)
  # four removals at a time (the CLI removes its arguments one after another; a removal under
  # the test host's emulation takes seconds)
  [ -n "$ids" ] && printf '%s\n' $ids | xargs -r -P 4 -n 6 "$DOCKER" rm -f >/dev/null 2>&1
  for n in $("$DOCKER" network ls -q --filter "label=boxcert.test=$RUN_ID" 2>/dev/null); do
    "$DOCKER" network rm "$n" >/dev/null 2>&1
  done
  rm -rf "$T"
}

# Processes a test starts beside its sessions (brokers, peers): their pids in HELPERS, killed by
# pid with the sessions at exit (trap stop_helpers EXIT).
HELPERS=()
stop_helpers() {
  local p
  for p in "${HELPERS[@]}"; do kill "$p" 2>/dev/null; done
  cleanup_sessions
}

# static_helper NAME DEST: tests/engine/NAME.c built static into DEST (one TAP line); on a host
# without a compiler (the test host, tests/hosts/guest_engine.sh) the binary built static
# elsewhere, from $BOXCERT_PREBUILT.
static_helper() {
  if [ -n "${BOXCERT_PREBUILT:-}" ]; then
    ok "the helper $1 (built static where the tests were shipped from)" \
      install -m 755 "$BOXCERT_PREBUILT/$1" "$2"
  else
    ok "the helper $1 builds (static)" cc -static -O2 -pthread -o "$2" \
      "$BOXCERT_SOURCE_DIR/tests/engine/$1.c"
  fi
}

# has_runtime NAME: the engine has the runtime NAME. Where BOXCERT_EXPECT_RUNTIMES names it (the
# test host's list), its absence is a failing test line, never a quiet skip.
has_runtime() {
  if "$DOCKER" info --format '{{json .Runtimes}}' 2>/dev/null | grep -q "\"$1\""; then return 0; fi
  case " ${BOXCERT_EXPECT_RUNTIMES:-} " in
    *" $1 "*) : >"$ERR"; _tap 1 "the engine has the runtime $1 (BOXCERT_EXPECT_RUNTIMES)" ;;
  esac
  return 1
}

# check_schema NAME FILE...: the documents validate against `boxcert schema NAME` with
# Debian's python3-jsonschema (run by /usr/bin/python3, which owns Debian's packages).
# Where BOXCERT_SCHEMA_LATER names a folder (the test host, tests/hosts/guest_engine.sh: under
# emulation one check of twenty certificates took 27 s of python), the documents are copied into
# a folder of their own beneath it and the driver that set it validates them where it runs, one
# TAP line a folder: here no line is written, so nothing passes unchecked. Two documents of one
# name would leave one unchecked: that is a failing line.
schema_later_n=0
check_schema() {
  local name=$1; shift
  if [ -n "${BOXCERT_SCHEMA_LATER:-}" ]; then
    schema_later_n=$((schema_later_n + 1)); : >"$ERR"
    local d; d=$BOXCERT_SCHEMA_LATER/$(basename "$0" .sh).$schema_later_n.$name
    if [ $# -gt 0 ] && mkdir -p "$d" && cp -- "$@" "$d/" 2>"$ERR" &&
       [ "$(find "$d" -maxdepth 1 -type f | wc -l)" -eq $# ]; then
      echo "# schema $name: $# document file(s) copied to $d, validated by the driver"
    else
      _tap 1 "schema $name: the documents could not be copied for the driver ($*)"
    fi
    return 0
  fi
  ok "schema $name: $(for f in "$@"; do basename "$f"; done | tr '\n' ' ')" \
    /usr/bin/python3 "$BOXCERT_SOURCE_DIR/tests/lib/schema_check.py" "$BOXCERT" "$name" "$@"
  grep -E 'INVALID|no schema|no document' "$OUT" | head -n 5 | sed 's/^/#   /'
  return 0
}

# A fake Engine API of recorded replies (tests/lib/fake_engine.py) on $T/e.sock, serving the
# fixture folder $1 (further arguments go to it); its pid in fake_engine_pid, stopped by
# fake_engine_stop (and by the trap the caller sets). Returns 1 if it never listens.
fake_engine_pid=
fake_engine_start() {
  local fix=$1; shift
  rm -f "$T/e.sock" "$T/e.sock.pid"
  /usr/bin/python3 "$BOXCERT_SOURCE_DIR/tests/lib/fake_engine.py" "$T/e.sock" "$fix" "$@" \
    >"$T/engine.log" 2>&1 &
  fake_engine_pid=$!
  for _ in $(seq 1 50); do [ -S "$T/e.sock" ] && return 0; sleep 0.1; done
  return 1
}
fake_engine_stop() {
  [ -n "$fake_engine_pid" ] && kill "$fake_engine_pid" 2>/dev/null
  [ -n "$fake_engine_pid" ] && wait "$fake_engine_pid" 2>/dev/null
  fake_engine_pid=
}
