#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A Debian 13 (trixie) test host under qemu (TCG): cgroup v2 with the systemd driver,
# AppArmor, Docker 26 with runc (default), crun and runsc, a mutual-TLS listener, and
# boxcert built for it in a trixie chroot. See docs/testhost.md.
#   testhost.sh build           make (or reuse) the cached guest, its saved state and boxcert
#   testhost.sh start [--cold]  boot it (restore the saved state; --cold: boot from the disk);
#                               wait for ssh, docker and the TLS port; print nothing
#   testhost.sh stop            end the qemu that start started (its pid file)
#   testhost.sh ssh -- CMD...   run CMD in the guest as root (one argument: a shell line)
#   testhost.sh status          say whether it runs, its ports and boot time
#   testhost.sh env             print BOXCERT_TESTHOST_SSH, DOCKER_HOST, DOCKER_TLS_VERIFY,
#                               DOCKER_CERT_PATH for the host side
# Everything lives in $BOXCERT_TESTHOST_CACHE (/var/tmp/boxcert-testhost). Each build step
# is redone only when its stamp changes: the text of the shell functions that make it, its
# package list, its config files and the mirror (and, for boxcert, the source tree).
set -euo pipefail

SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
SRC=$(cd "$(dirname "$SELF")/.." && pwd)
CONF=$SRC/scripts/testhost
CACHE=${BOXCERT_TESTHOST_CACHE:-/var/tmp/boxcert-testhost}
RUN=$CACHE/run
LOG=$CACHE/log
SUITE=trixie
MEM=${BOXCERT_TESTHOST_MEM:-2048}     # MiB (the guest peaks near 450 MiB used; the Go daemons collect past 128 MiB)
CPUS=${BOXCERT_TESTHOST_CPUS:-2}
CPU_MODEL=${BOXCERT_TESTHOST_CPU:-max,la57=off}
DISK_SIZE=8G
CMDLINE="root=/dev/vda rw console=ttyS0,115200 panic=-1 systemd.unified_cgroup_hierarchy=1 apparmor=1 security=apparmor mitigations=off init_on_alloc=0 randomize_kstack_offset=off norandmaps"
HOST_ALIAS=boxcert-testhost

log() { printf 'testhost.sh: %s\n' "$*" >&2; }
die() { log "$*"; exit 3; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
record() { # record WHAT SECONDS: append a measured time to $LOG/times
  mkdir -p "$LOG"; printf '%s %s %s\n' "$(date -u +%FT%TZ)" "$1" "$2" >>"$LOG/times"
}
sha() { sha256sum | cut -c1-64; }

# ---------------------------------------------------------------- host tools
HOST_PKGS=(mmdebstrap qemu-system-x86 qemu-utils e2fsprogs openssl openssh-client gpgv
  python3 zstd curl iproute2 util-linux tar git)

host_tools() {
  local missing=() p st
  for p in "${HOST_PKGS[@]}"; do
    st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [ "$st" = "install ok installed" ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "missing Debian packages: ${missing[*]} (run as root)"
  log "installing ${missing[*]}"
  local l; l=$(mktemp)
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get -o DPkg::Lock::Timeout=600 update -qq >"$l" 2>&1 ||
     ! apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >"$l" 2>&1; then
    tail -n 30 "$l" >&2; rm -f "$l"; die "apt-get failed"
  fi
  rm -f "$l"
}

# The mirror this machine's apt uses (sources.list or deb822 .sources), suite $SUITE.
mirrors() {
  local files=() u main="" sec=""
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  for u in $( (grep -hE '^[[:space:]]*(deb[[:space:]]|URIs:)' "${files[@]}" 2>/dev/null || true) |
              grep -oE '(https?|file)://[^][:space:]]+'); do
    u=${u%/}
    case "$u" in
      */debian) [ -n "$main" ] || main=$u ;;
      */debian-security) [ -n "$sec" ] || sec=$u ;;
    esac
  done
  main=${BOXCERT_TESTHOST_MIRROR:-$main}
  [ -n "$main" ] || die "no Debian mirror (…/debian) in /etc/apt/sources.list*; set BOXCERT_TESTHOST_MIRROR"
  echo "deb $main $SUITE main"
  echo "deb $main $SUITE-updates main"
  [ -z "$sec" ] || echo "deb $sec $SUITE-security main"
}

pkglist() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$1" | grep -v '^$' | paste -sd, -; }

# ---------------------------------------------------------------- keys (made once)
# The apt keyring of trixie: Debian 13's release keys from this machine's
# debian-archive-keyring (bookworm's package carries them since 2023.3).
make_keyring() {
  local d=$CACHE/apt-keys k
  [ -d "$d" ] && return 0
  mkdir -p "$d.tmp"; chmod 755 "$CACHE" "$d.tmp"
  for k in debian-archive-trixie-stable debian-archive-trixie-automatic debian-archive-trixie-security-automatic; do
    [ -f "/usr/share/keyrings/$k.gpg" ] ||
      die "/usr/share/keyrings/$k.gpg is missing: apt-get install debian-archive-keyring (2023.3 or later has Debian 13's keys)"
    cp "/usr/share/keyrings/$k.gpg" "$d.tmp/"
  done
  mv "$d.tmp" "$d"
}

make_keys() {
  local k=$CACHE/keys
  [ -f "$k/done" ] && return 0
  rm -rf "$k/tls" "$k/ssh"; mkdir -p "$k/tls/client" "$k/ssh"; chmod 700 "$k"
  (
    cd "$k/tls"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
      -subj "/CN=boxcert test host CA" -keyout ca-key.pem -out ca.pem 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -subj "/CN=$HOST_ALIAS" -keyout server-key.pem -out server.csr 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.0.2.15,DNS:%s\nextendedKeyUsage=serverAuth\n' \
      "$HOST_ALIAS" >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
      -extfile server.ext -out server-cert.pem 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -subj "/CN=boxcert test host client" -keyout client/key.pem -out client.csr 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 \
      -extfile client.ext -out client/cert.pem 2>/dev/null
    cp ca.pem client/ca.pem
    chmod 600 ./*-key.pem client/key.pem
    rm -f ./*.csr ./*.ext ./*.srl
  )
  ssh-keygen -q -t ed25519 -N '' -C "$HOST_ALIAS host" -f "$k/ssh/ssh_host_ed25519_key"
  ssh-keygen -q -t ed25519 -N '' -C "$HOST_ALIAS root" -f "$k/ssh/id_ed25519"
  echo "$HOST_ALIAS $(cut -d' ' -f1,2 "$k/ssh/ssh_host_ed25519_key.pub")" >"$k/ssh/known_hosts"
  touch "$k/done"
}

keys_digest() {
  cat "$CACHE/keys/tls/ca.pem" "$CACHE/keys/tls/server-cert.pem" \
    "$CACHE/keys/ssh/ssh_host_ed25519_key.pub" "$CACHE/keys/ssh/id_ed25519.pub" | sha
}

# ---------------------------------------------------------------- mmdebstrap
# Downloaded .debs are kept in $CACHE/debs between builds (mmdebstrap's sync-in/sync-out).
debstrap() { # debstrap PACKAGE-LIST TARGET-DIR LOGFILE [mmdebstrap options...]
  local list=$1 target=$2 logf=$3; shift 3
  local srcs=(); mapfile -t srcs < <(mirrors)
  mkdir -p "$CACHE/debs"
  mmdebstrap --mode=root --variant=apt --format=directory \
    --keyring="$CACHE/apt-keys" \
    --aptopt='APT::Install-Recommends "false"' \
    --include="$(pkglist "$list")" \
    --skip=essential/unlink \
    --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
    --setup-hook="sync-in $CACHE/debs /var/cache/apt/archives/" \
    --customize-hook="sync-out /var/cache/apt/archives $CACHE/debs" \
    --customize-hook="bash $SELF __check-release \"\$1\"" \
    "$@" "$SUITE" "$target" "${srcs[@]}" >"$logf" 2>&1 ||
    { tail -n 30 "$logf" >&2; die "mmdebstrap failed (log: $logf)"; }
}

# Each InRelease that apt fetched carries a good signature by one of Debian 13's keys (the
# keyring holds nothing else) and no bad one. (gpgv also fails on signatures by keys it does
# not hold, such as the previous release's, which apt ignores.)
check_release() { # check_release ROOT (a customize hook)
  local f out ok=0
  for f in "$1"/var/lib/apt/lists/*_InRelease; do
    [ -f "$f" ] || continue
    out=$(gpgv --keyring "$CACHE/apt-keys/debian-archive-trixie-stable.gpg" \
      --keyring "$CACHE/apt-keys/debian-archive-trixie-automatic.gpg" \
      --keyring "$CACHE/apt-keys/debian-archive-trixie-security-automatic.gpg" "$f" 2>&1 || true)
    if ! grep -q 'Good signature from ".*(13/trixie)' <<<"$out" || grep -q 'BAD signature' <<<"$out"; then
      echo "$out" >&2; echo "testhost.sh: $(basename "$f") does not verify with Debian 13's keys" >&2; exit 1
    fi
    echo "$(basename "$f"): $(grep -o 'Good signature from "[^"]*"' <<<"$out" | paste -sd' ' -)"
    ok=$((ok + 1))
  done
  [ "$ok" -gt 0 ] || { echo "testhost.sh: no InRelease to check" >&2; exit 1; }
}

stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# ---------------------------------------------------------------- the guest image
guest_stamp() {
  {
    declare -f debstrap check_release build_guest customize_guest
    echo "$SUITE $DISK_SIZE"; mirrors; cat "$CONF/guest.packages"; keys_digest
    (cd "$CONF/guest" && find . -type f | LC_ALL=C sort | while read -r f; do
      stat -c '%a %n' "$f"; cat "$f"; done)
  } | sha
}

build_guest() {
  local g=$CACHE/guest root=$CACHE/guest.root
  rm -rf "$g" "$root" "$CACHE/ready"; mkdir -p "$g"
  debstrap "$CONF/guest.packages" "$root" "$LOG/guest.log" \
    --customize-hook="bash $SELF __customize-guest \"\$1\""
  cp "$(ls "$root"/boot/vmlinuz-* | sort -V | tail -n 1)" "$g/vmlinuz"
  cp "$(ls "$root"/boot/initrd.img-* | sort -V | tail -n 1)" "$g/initrd.img"
  chroot "$root" dpkg-query -W -f='${Package} ${Version}\n' >"$g/packages.txt"
  mkfs.ext4 -q -F -L boxcert-root -d "$root" "$g/base.raw" "$DISK_SIZE" >>"$LOG/guest.log" 2>&1 ||
    die "mkfs.ext4 -d failed (log: $LOG/guest.log)"
  rm -rf "$root"
}

customize_guest() { # customize_guest ROOT (a customize hook: runs outside, ROOT is the chroot)
  local r=$1 k=$CACHE/keys
  cp -a "$CONF/guest/." "$r/"
  echo "$HOST_ALIAS" >"$r/etc/hostname"
  printf '127.0.0.1 localhost\n127.0.1.1 %s\n' "$HOST_ALIAS" >"$r/etc/hosts"
  printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s\n' \
    "$(mirrors | sed 's/^deb //')" >"$r/etc/apt/sources.list"
  # sshd: the host key and root's authorized key from $CACHE/keys/ssh
  rm -f "$r"/etc/ssh/ssh_host_*
  install -m 600 "$k/ssh/ssh_host_ed25519_key" "$r/etc/ssh/"
  install -m 644 "$k/ssh/ssh_host_ed25519_key.pub" "$r/etc/ssh/"
  install -d -m 700 "$r/root/.ssh"
  install -m 600 "$k/ssh/id_ed25519.pub" "$r/root/.ssh/authorized_keys"
  # dockerd: TLS server side, runtimes, the systemd cgroup driver
  install -d -m 700 "$r/etc/docker/tls"
  install -m 644 "$k/tls/ca.pem" "$k/tls/server-cert.pem" "$r/etc/docker/tls/"
  install -m 600 "$k/tls/server-key.pem" "$r/etc/docker/tls/"
  cat >"$r/etc/docker/daemon.json" <<'JSON'
{
  "exec-opts": ["native.cgroupdriver=systemd"],
  "default-runtime": "runc",
  "runtimes": {
    "crun": {"path": "/usr/bin/crun"},
    "runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none", "--oci-seccomp"]},
    "runsc-plain": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}
  }
}
JSON
  # boxcert-session:1 as scripts/engine.sh makes it, from the guest's own busybox-static
  local s; s=$(mktemp -d)
  mkdir -p "$s/bin" "$s/etc" "$s/tmp" "$s/workspace" "$s/root" "$s/proc" "$s/sys" "$s/dev"
  chmod 1777 "$s/tmp"
  cp "$r/bin/busybox" "$s/bin/busybox"
  for a in sh sleep cat id ls echo true false mkdir touch grep head env; do ln -s busybox "$s/bin/$a"; done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65532:65532:nobody:/nonexistent:/bin/false\n' >"$s/etc/passwd"
  printf 'root:x:0:\nnobody:x:65532:\n' >"$s/etc/group"
  install -d "$r/usr/local/share/boxcert-testhost"
  tar -C "$s" --owner=0 --group=0 --numeric-owner -cf "$r/usr/local/share/boxcert-testhost/session-rootfs.tar" .
  rm -rf "$s"
  chroot "$r" systemctl enable systemd-networkd.service boxcert-session-image.service \
    boxcert-runc-memfd.service boxcert-cfs-quota.service >/dev/null 2>&1
  # no timers that would run during a test; no user manager for root's ssh logins (it re-reads
  # the mount table on every change, as pid 1 does: some 4% of the guest's CPU in the zoos)
  chroot "$r" systemctl mask apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
    e2scrub_all.timer fstrim.timer user@0.service >/dev/null 2>&1 || true
}

# ---------------------------------------------------------------- boxcert for the guest
buildroot_stamp() {
  { declare -f debstrap check_release build_buildroot; mirrors; cat "$CONF/buildroot.packages"; } | sha
}

build_buildroot() {
  rm -rf "$CACHE/buildroot"
  debstrap "$CONF/buildroot.packages" "$CACHE/buildroot" "$LOG/buildroot.log"
}

# The files that make the source tree: git's tracked and untracked-but-not-ignored files.
source_files() {
  if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$SRC" ls-files -z --cached --others --exclude-standard | LC_ALL=C sort -z |
      while IFS= read -r -d '' f; do [ -f "$SRC/$f" ] && printf '%s\0' "$f"; done
  else
    (cd "$SRC" && find . -type f ! -path './.git/*' ! -path './build*' -printf '%P\0' | LC_ALL=C sort -z)
  fi
}

boxcert_stamp() {
  {
    cat "$CACHE/buildroot.stamp"; declare -f build_boxcert
    (cd "$SRC" && source_files | xargs -0 sha256sum --)
  } | sha
}

# sync_tree NEW OLD: OLD becomes a copy of NEW where a file of the same content and mode keeps
# its time (a fresh clone's files are all newer than the last build: cmake would rebuild all)
sync_tree() {
  python3 - "$1" "$2" <<'PY'
import filecmp, os, shutil, stat, sys
new, old = sys.argv[1], sys.argv[2]
want = set()
for d, _, fs in os.walk(new):
    for f in fs:
        rel = os.path.relpath(os.path.join(d, f), new)
        want.add(rel)
        n, o = os.path.join(new, rel), os.path.join(old, rel)
        if os.path.isfile(o) and not os.path.islink(o) and \
           stat.S_IMODE(os.stat(n).st_mode) == stat.S_IMODE(os.stat(o).st_mode) and \
           filecmp.cmp(n, o, shallow=False):
            continue
        if os.path.lexists(o) and (os.path.isdir(o) and not os.path.islink(o)):
            shutil.rmtree(o)
        os.makedirs(os.path.dirname(o), exist_ok=True)
        shutil.copy(n, o + ".new")   # its time now: newer than what was built from the old
        os.replace(o + ".new", o)
for d, dirs, fs in os.walk(old, topdown=False):
    for f in fs:
        p = os.path.join(d, f)
        if os.path.relpath(p, old) not in want:
            os.unlink(p)
    if d != old and not os.listdir(d):
        os.rmdir(d)
PY
}

build_boxcert() {
  local b=$CACHE/buildroot
  rm -rf "$b/src.new" "$b/stage"; mkdir -p "$b/src.new" "$b/src"
  (cd "$SRC" && source_files | tar --null -T - -cf -) | tar -C "$b/src.new" -xf -
  sync_tree "$b/src.new" "$b/src" || die "copying the source tree into the buildroot failed"
  rm -rf "$b/src.new"
  # /build stays between builds: cmake rebuilds what changed (in a fresh clone too: sync_tree
  # keeps the times of unchanged files). proc is mounted in a private mount namespace, so
  # nothing is left mounted.
  unshare --mount --pid --fork --mount-proc="$b/proc" chroot "$b" /usr/bin/env -i \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 /bin/sh -ec '
      cmake -S /src -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr/local
      cmake --build /build -j "$(nproc)" --target boxcert boxcert-verify man-pages
      DESTDIR=/stage cmake --install /build
      /stage/usr/local/bin/boxcert --help >/dev/null' >"$LOG/boxcert.log" 2>&1 ||
    { tail -n 30 "$LOG/boxcert.log" >&2; die "building boxcert in the buildroot failed (log: $LOG/boxcert.log)"; }
  rm -rf "$CACHE/boxcert"; mkdir -p "$CACHE/boxcert"
  tar -C "$b/stage" -cf "$CACHE/boxcert/stage.tar" .
}

# ---------------------------------------------------------------- qemu
qemu_pid() { # the pid of our running qemu, or nothing
  local p
  p=$(cat "$RUN/qemu.pid" 2>/dev/null) || return 0
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = qemu-system-x86 ] &&
    tr '\0' ' ' <"/proc/$p/cmdline" | grep -qF -- "$RUN/qmp.sock" && echo "$p"
  return 0
}

qemu_args() { # qemu_args DIR DISK SSHPORT TLSPORT: the machine; identical for save and restore
  local d=$1 disk=$2 sp=$3 tp=$4 g=$CACHE/guest
  printf '%s\n' qemu-system-x86_64 -name "$HOST_ALIAS" -machine q35 \
    -accel tcg,thread=multi,tb-size=2048 -cpu "$CPU_MODEL" -smp "$CPUS" -m "$MEM" \
    -kernel "$g/vmlinuz" -initrd "$g/initrd.img" -append "$CMDLINE" \
    -drive "file=$disk,if=virtio,format=qcow2,cache=unsafe" \
    -netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$sp-:22,hostfwd=tcp:127.0.0.1:$tp-:2376" \
    -device virtio-net-pci,netdev=n0 -device virtio-rng-pci \
    -nographic -serial "file:$d/console.log" -monitor none \
    -qmp "unix:$d/qmp.sock,server=on,wait=off" -pidfile "$d/qemu.pid" -no-reboot
}

free_port() {
  local p used
  used=$(ss -Htln 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
  while :; do
    p=$((20000 + RANDOM % 30000))
    grep -qx "$p" <<<"$used" || { echo "$p"; return; }
  done
}

ssh_config() { # ssh_config DIR SSHPORT: commands share the one connection wait_ssh opens
  cat >"$1/ssh_config" <<EOF
Host $HOST_ALIAS
  HostName 127.0.0.1
  Port $2
  User root
  IdentityFile $CACHE/keys/ssh/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $CACHE/keys/ssh/known_hosts
  HostKeyAlias $HOST_ALIAS
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
  ConnectTimeout 10
  ServerAliveInterval 10
  ServerAliveCountMax 6
  ControlPath $1/ssh-mux
  ControlMaster no
EOF
}

gssh() { # gssh DIR CMD...: ssh into the guest of DIR
  local d=$1; shift
  ssh -F "$d/ssh_config" "$HOST_ALIAS" "$@"
}

tls_ping() { # tls_ping TLSPORT
  [ "$(curl -s --max-time 5 --cacert "$CACHE/keys/tls/client/ca.pem" --cert "$CACHE/keys/tls/client/cert.pem" \
    --key "$CACHE/keys/tls/client/key.pem" "https://127.0.0.1:$1/_ping" 2>/dev/null)" = OK ]
}

READY='systemctl is-active --quiet docker.service && systemctl is-active --quiet boxcert-session-image.service && docker info >/dev/null 2>&1 && docker image inspect boxcert-session:1 >/dev/null 2>&1'

# launch DIR DISK MODE [qemu args...]: start qemu on fresh ports (retried when a port is
# taken meanwhile); leaves DIR/ports and DIR/ssh_config.
launch() {
  local d=$1 disk=$2; shift 2
  local sp tp args=()
  for _ in 1 2 3; do
    sp=$(free_port); tp=$(free_port); [ "$sp" != "$tp" ] || continue
    mapfile -t args < <(qemu_args "$d" "$disk" "$sp" "$tp")
    rm -f "$d/qemu.pid" "$d/qmp.sock" "$d/console.log"
    setsid "${args[@]}" "$@" </dev/null >>"$d/qemu.log" 2>&1 9>&- &
    local qp=$!
    for _ in $(seq 1 50); do
      [ -s "$d/qemu.pid" ] && break
      kill -0 "$qp" 2>/dev/null || break
      sleep 0.1
    done
    if [ -s "$d/qemu.pid" ] && kill -0 "$(cat "$d/qemu.pid")" 2>/dev/null; then
      printf 'SSH_PORT=%s\nTLS_PORT=%s\n' "$sp" "$tp" >"$d/ports"
      ssh_config "$d" "$sp"
      return 0
    fi
    wait "$qp" 2>/dev/null || true
    grep -q 'host forwarding' "$d/qemu.log" 2>/dev/null || break
  done
  tail -n 5 "$d/qemu.log" >&2
  die "qemu did not start (log: $d/qemu.log)"
}

# wait_ssh DIR SECONDS: until the guest's sshd lets root in, then keep that connection as
# the one the later commands share (ssh -O exit, or the guest's end, ends it).
wait_ssh() {
  local d=$1 t0; t0=$(date +%s)
  while :; do
    [ -n "$(cat "$d/qemu.pid" 2>/dev/null)" ] && kill -0 "$(cat "$d/qemu.pid")" 2>/dev/null || return 1
    if ssh -F "$d/ssh_config" -o ControlMaster=yes -o ConnectTimeout=5 -f -N "$HOST_ALIAS" \
         </dev/null >/dev/null 2>&1; then
      ssh -F "$d/ssh_config" -O check "$HOST_ALIAS" 2>&1 | sed -n 's/.*pid=\([0-9]*\).*/\1/p' >"$d/ssh-mux.pid"
      return 0
    fi
    [ $(($(date +%s) - t0)) -lt "$2" ] || return 1
    sleep 0.5
  done
}

ssh_close() { # ssh_close DIR: end the shared connection (the ssh that wait_ssh started)
  local d=$1 p
  [ -S "$d/ssh-mux" ] && ssh -F "$d/ssh_config" -O exit "$HOST_ALIAS" >/dev/null 2>&1
  p=$(cat "$d/ssh-mux.pid" 2>/dev/null || true)
  if [ -n "$p" ] && kill -0 "$p" 2>/dev/null && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = ssh ]; then
    kill "$p" 2>/dev/null || true
  fi
  rm -f "$d/ssh-mux" "$d/ssh-mux.pid"
}

wait_ready() { # wait_ready DIR SECONDS: ssh answers, docker works, the TLS port answers
  local d=$1 limit=$2 t0 qp tp
  t0=$(date +%s); qp=$(cat "$d/qemu.pid")
  tp=$(sed -n 's/^TLS_PORT=//p' "$d/ports")
  while :; do
    kill -0 "$qp" 2>/dev/null || { log "qemu exited; console: $d/console.log"; return 1; }
    if gssh "$d" -o ConnectTimeout=5 "$READY" 2>/dev/null && tls_ping "$tp"; then return 0; fi
    [ $(($(date +%s) - t0)) -lt "$limit" ] || { log "not ready after ${limit}s; console: $d/console.log"; return 1; }
    sleep 1
  done
}

qmp() { # qmp SOCKET save FILE | cont | quit: talk to qemu's QMP socket
  /usr/bin/python3 - "$@" <<'PY'
import json, socket, sys, time
sock, what = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX); s.connect(sock); f = s.makefile("rw")
json.loads(f.readline())
def cmd(c, **a):
    f.write(json.dumps({"execute": c, "arguments": a}) + "\n"); f.flush()
    while True:
        try:
            r = json.loads(f.readline())
        except ValueError:
            return {}
        if "return" in r: return r["return"]
        if "error" in r: sys.exit("qmp %s: %s" % (c, r["error"]))
cmd("qmp_capabilities")
if what == "save":
    cmd("stop")
    cmd("migrate", uri="exec:zstd -q -1 -T0 -o " + sys.argv[3])
    while True:
        st = cmd("query-migrate").get("status")
        if st == "completed": break
        if st in ("failed", "cancelled"): sys.exit("migration " + st)
        time.sleep(0.2)
elif what == "cont":
    # an incoming machine stays paused, as its source was when saved: wait for the
    # state to be read, then run it
    for _ in range(1200):
        if cmd("query-status").get("status") == "paused" and \
           cmd("query-migrate").get("status") == "completed":
            break
        time.sleep(0.1)
    else:
        sys.exit("the saved state was not read in 120 s")
    cmd("cont")
    sys.exit(0)
cmd("quit")
PY
}

wait_gone() { # wait_gone PID SECONDS
  for _ in $(seq 1 $(($2 * 5))); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.2; done
  return 1
}

# The saved state: a cold boot of the new disk (ready.qcow2 over base.raw) until everything
# answers, then the machine is stopped and its memory written to ready.state; ready.qcow2
# is never written again. start restores it on a throwaway overlay.
ready_stamp() {
  { cat "$CACHE/guest.stamp"; declare -f qemu_args prime launch; echo "$READY $MEM $CPUS $CPU_MODEL $CMDLINE"
    qemu-system-x86_64 --version | head -n 1; } | sha
}

prime() {
  local d=$CACHE/ready t0 qp
  rm -rf "$d"; mkdir -p "$d"
  qemu-img create -q -f qcow2 -b "$CACHE/guest/base.raw" -F raw "$d/ready.qcow2"
  t0=$(now)
  launch "$d" "$d/ready.qcow2"
  qp=$(cat "$d/qemu.pid")
  wait_ssh "$d" 900 && wait_ready "$d" 600 ||
    { ssh_close "$d"; kill "$qp" 2>/dev/null || true; die "the first boot did not get ready"; }
  local cold; cold=$(since "$t0"); record "cold-boot(first)" "$cold"
  echo "$cold" >"$d/cold-boot.seconds"
  gssh "$d" 'systemctl is-system-running --wait >/dev/null 2>&1; sync' || true
  ssh_close "$d"   # no connection of this machine's in the saved state
  cp "$d/console.log" "$d/first-boot.console.log"
  qmp "$d/qmp.sock" save "$d/ready.state" || { kill "$qp" 2>/dev/null || true; die "saving the state failed"; }
  wait_gone "$qp" 60 || die "qemu $qp did not quit after saving"
  rm -f "$d/qmp.sock" "$d/qemu.pid"
}

# ---------------------------------------------------------------- commands
cmd_build() {
  host_tools
  mkdir -p "$CACHE" "$LOG"
  make_keyring; make_keys
  # Two independent chains, side by side: the guest image and its first boot (mostly
  # downloads, dpkg and the emulated boot), and the buildroot and boxcert (mostly the
  # compiler). A cold build takes the longer of the two instead of their sum.
  local chain rc=0
  build_guest_chain & chain=$!
  build_boxcert_chain || rc=$?
  wait "$chain" || rc=$?
  [ "$rc" -eq 0 ] || exit "$rc"
}

build_boxcert_chain() {
  local s t0
  s=$(buildroot_stamp)
  if ! stamp_ok "$CACHE/buildroot.stamp" "$s"; then
    log "building the trixie buildroot (mmdebstrap; log: $LOG/buildroot.log)"
    t0=$(now); rm -f "$CACHE/buildroot.stamp" "$CACHE/boxcert.stamp"
    build_buildroot; echo "$s" >"$CACHE/buildroot.stamp"; record buildroot "$(since "$t0")"
  fi
  s=$(boxcert_stamp)
  if ! stamp_ok "$CACHE/boxcert.stamp" "$s"; then
    log "building boxcert in the buildroot (log: $LOG/boxcert.log)"
    t0=$(now); rm -f "$CACHE/boxcert.stamp"
    build_boxcert; echo "$s" >"$CACHE/boxcert.stamp"; record boxcert "$(since "$t0")"
  fi
}

build_guest_chain() {
  local s t0
  s=$(guest_stamp)
  if ! stamp_ok "$CACHE/guest.stamp" "$s"; then
    [ -z "$(qemu_pid)" ] || die "the test host runs: testhost.sh stop first"
    log "building the trixie guest image (mmdebstrap; log: $LOG/guest.log)"
    t0=$(now); rm -f "$CACHE/guest.stamp" "$CACHE/ready.stamp"
    build_guest; echo "$s" >"$CACHE/guest.stamp"; record guest "$(since "$t0")"
  fi
  s=$(ready_stamp)
  if ! stamp_ok "$CACHE/ready.stamp" "$s"; then
    [ -z "$(qemu_pid)" ] || die "the test host runs: testhost.sh stop first"
    log "first boot of the guest and saving its state (console: $CACHE/ready/console.log)"
    t0=$(now); rm -f "$CACHE/ready.stamp"
    prime; echo "$s" >"$CACHE/ready.stamp"; record prime "$(since "$t0")"
  fi
}

cmd_start() {
  local cold=0
  [ "${1:-}" = "--cold" ] && cold=1
  if [ -n "$(qemu_pid)" ]; then log "already running (pid $(qemu_pid))"; return 0; fi
  cmd_build
  rm -rf "$RUN"; mkdir -p "$RUN"
  local t0 mode qp
  mark() { echo "$(since "$t0") s: $*" >>"$RUN/timing"; }
  if [ "$cold" -eq 0 ] && [ -f "$CACHE/ready/ready.state" ]; then
    mode=restore; t0=$(now)
    qemu-img create -q -f qcow2 -b "$CACHE/ready/ready.qcow2" -F qcow2 "$RUN/disk.qcow2"
    launch "$RUN" "$RUN/disk.qcow2" -incoming "exec:zstd -dcq $CACHE/ready/ready.state"
    # the guest's clock stands where it was saved: set it before anything else
    if ! qmp "$RUN/qmp.sock" cont || ! mark "state read, running" || ! wait_ssh "$RUN" 60 ||
       ! gssh "$RUN" "date -u -s @$(date +%s) >/dev/null" || ! mark "ssh answers, clock set" ||
       ! wait_ready "$RUN" 60; then
      log "restoring the saved state failed; booting from the disk (console: $RUN/console.log)"
      ssh_close "$RUN"; qp=$(qemu_pid); [ -z "$qp" ] || { kill "$qp"; wait_gone "$qp" 30 || true; }
      mkdir -p "$LOG"; cp "$RUN/console.log" "$LOG/failed-restore.console.log" 2>/dev/null || true
      cp "$RUN/qemu.log" "$LOG/failed-restore.qemu.log" 2>/dev/null || true
      rm -rf "$RUN"; mkdir -p "$RUN"; cold=1
    fi
  else
    cold=1
  fi
  if [ "$cold" -eq 1 ]; then
    mode=cold; t0=$(now)
    qemu-img create -q -f qcow2 -b "$CACHE/guest/base.raw" -F raw "$RUN/disk.qcow2"
    launch "$RUN" "$RUN/disk.qcow2"
    wait_ssh "$RUN" 900 && wait_ready "$RUN" 600 ||
      { ssh_close "$RUN"; qp=$(qemu_pid); [ -z "$qp" ] || kill "$qp"; die "the guest did not get ready"; }
  fi
  mark "docker, the session image and the TLS port answer"
  # boxcert, as built for trixie in the buildroot
  gssh "$RUN" 'tar -C / --no-same-owner -xf -' <"$CACHE/boxcert/stage.tar" ||
    die "copying boxcert into the guest failed"
  mark "boxcert copied in"
  local secs; secs=$(since "$t0")
  printf 'MODE=%s\nBOOT_SECONDS=%s\n' "$mode" "$secs" >>"$RUN/ports"
  record "start($mode)" "$secs"
}


cmd_stop() {
  local p; p=$(qemu_pid)
  ssh_close "$RUN"
  if [ -n "$p" ]; then
    kill "$p"
    wait_gone "$p" 30 || die "qemu $p did not end"
  fi
  rm -f "$RUN/qemu.pid" "$RUN/qmp.sock" "$RUN/disk.qcow2"
}

cmd_ssh() {
  [ "${1:-}" = "--" ] && shift
  [ -n "$(qemu_pid)" ] || die "the test host is not running (testhost.sh start)"
  if [ $# -eq 1 ]; then
    exec ssh -F "$RUN/ssh_config" "$HOST_ALIAS" "$1"
  elif [ $# -gt 1 ]; then
    exec ssh -F "$RUN/ssh_config" "$HOST_ALIAS" "$(printf '%q ' "$@")"
  else
    exec ssh -F "$RUN/ssh_config" -o BatchMode=yes -t "$HOST_ALIAS"
  fi
}

cmd_env() {
  [ -n "$(qemu_pid)" ] || die "the test host is not running (testhost.sh start)"
  local tp; tp=$(sed -n 's/^TLS_PORT=//p' "$RUN/ports")
  echo "BOXCERT_TESTHOST_SSH='ssh -F $RUN/ssh_config $HOST_ALIAS'"
  echo "DOCKER_HOST=tcp://127.0.0.1:$tp"
  echo "DOCKER_TLS_VERIFY=1"
  echo "DOCKER_CERT_PATH=$CACHE/keys/tls/client"
}

cmd_status() {
  local p; p=$(qemu_pid)
  if [ -z "$p" ]; then echo "test host: not running"; return 1; fi
  echo "test host: running (qemu pid $p, $(awk '/VmRSS/ {printf "%d MiB", $2/1024}' "/proc/$p/status") resident)"
  sed 's/^/  /' "$RUN/ports"
  [ -f "$RUN/timing" ] && sed 's/^/  /' "$RUN/timing"
  return 0
}

cmd="${1:-}"; [ $# -gt 0 ] && shift
case "$cmd" in
  build|start|stop)
    mkdir -p "$CACHE"
    exec 9>"$CACHE/lock"
    flock -w 1800 9 || die "another testhost.sh holds $CACHE/lock"
    "cmd_$cmd" "$@"
    ;;
  ssh) cmd_ssh "$@" ;;
  env) cmd_env ;;
  status) cmd_status ;;
  __customize-guest) customize_guest "$1" ;;
  __check-release) check_release "$1" ;;
  *) echo "usage: testhost.sh build|start [--cold]|stop|ssh -- CMD...|status|env" >&2; exit 2 ;;
esac
