#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mount propagation as the kernel shows it (attest/propagation.c through
# tests/tools/propagation_outside): a default session's root is master:N of its own overlay's
# group and reaches nothing outside; an rslave and an rshared bind of a host folder this test
# makes shared receive a mount made there after start, and their group names the host folder;
# a private bind of the same folder receives nothing.
. "$(dirname "$0")/../lib/testlib.sh"
need_engine
TOOL=$BOXCERT_BIN/../tests/tools/propagation_outside
W=/tmp/bxt-prop-$$
prop_cleanup() {
  cleanup_sessions
  umount "$W/src/late" 2>/dev/null
  umount "$W/src" 2>/dev/null
  rm -rf "$W"
}
trap prop_cleanup EXIT
[ -x "$TOOL" ] || { echo "not ok 1 - $TOOL built"; echo "1..1"; exit 1; }
mkdir -p "$W/src"
# a host folder that is its own shared mount (this host's root may be private)
ok "host folder made a shared mount" sh -c "mount --bind '$W/src' '$W/src' && mount --make-shared '$W/src'"
mkdir -p "$W/src/late"

merged() { "$DOCKER" inspect --format '{{.GraphDriver.Data.MergedDir}}' "$1"; }
line() { # line NAME POINT: the tool's line for POINT in session NAME
  local id=$1 pid
  pid=$(cpid "$id")
  "$TOOL" "/proc/$pid/mountinfo" /proc/1/mountinfo "$(merged "$id")" | awk -v p="$2" '$1 == p'
}

def=$(session default)
prv=$(session private -v "$W/src:/x")
sl=$(session rslave -v "$W/src:/x:rslave")
sh=$(session rshared -v "$W/src:/x:rshared")
sleep 1

# the default session's root: a slave, of its own overlay only
head -n 1 "/proc/$(cpid "$def")/mountinfo" >"$T/root"
like "$T/root" ' / [^ ]+ master:[0-9]+ ' "default root is master:N"
is "$(line "$def" /)" "/ 1 -" "default root: nothing outside its own group"
# without the session's own rootfs, its overlay counts (the exclusion decides)
"$TOOL" "/proc/$(cpid "$def")/mountinfo" /proc/1/mountinfo | awk '$1 == "/"' >"$T/noown"
like "$T/noown" "^/ 1 .*/merged" "default root without its own: the overlay is outside"

is "$(line "$prv" /x)" "/x 0 -" "private bind receives nothing"
line "$sl" /x >"$T/sl"
like "$T/sl" "^/x 1 (.*,)?$W/src(,|\$)" "rslave bind: the host folder is in its group"
line "$sh" /x >"$T/sh"
like "$T/sh" "^/x 1 (.*,)?$W/src(,|\$)" "rshared bind: the host folder is in its group"

# a host mount made after start appears in the slave and the shared session, not the private
ok "host mount made after start" mount -t tmpfs bxt-late "$W/src/late"
for s in rslave:$sl rshared:$sh; do
  ok "${s%%:*}: the later host mount appears inside" \
    "$DOCKER" exec "${s#*:}" grep -q ' /x/late ' /proc/self/mountinfo
done
"$DOCKER" exec "$prv" cat /proc/self/mountinfo >"$T/prv"
unlike "$T/prv" ' /x/late ' "private: the later host mount does not appear"
done_testing
