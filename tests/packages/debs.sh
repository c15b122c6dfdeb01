#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian packages (cmake/packaging.cmake): cpack makes boxcert-verify and boxcert,
# lintian finds no error, each holds its binary, manual pages, completions, docs and
# examples; the dependencies are dpkg-shlibdeps's (the verifier's: no libcurl, no libgit2).
# Then a clean Debian 12 root (mmdebstrap, variant apt) runs the README's tutorial verbatim
# (tests/lib/readme.py): it installs the two packages with apt (their dependencies from the
# Debian archive) and talks to this machine's engine through its socket, with the docker
# client copied in. Downloaded packages are kept in $BOXCERT_DEB_CACHE (default
# /var/tmp/boxcert-debcache) so a second run downloads only the package lists.
# Run by `make packages` (and so by .ci/run); needs root.
. "$(dirname "$0")/../lib/testlib.sh"
build=${BOXCERT_BUILD_DIR:-$BOXCERT_SOURCE_DIR/build}
cache=${BOXCERT_DEB_CACHE:-/var/tmp/boxcert-debcache}
version=$(sed -n 's/^project(boxcert VERSION \([0-9.]*\) .*/\1/p' "$BOXCERT_SOURCE_DIR/CMakeLists.txt")
[ "$(id -u)" -eq 0 ] || skip_all "needs root (mmdebstrap, chroot)"
for t in cpack lintian mmdebstrap dpkg-deb; do
  command -v "$t" >/dev/null || skip_all "no $t (scripts/deps.sh installs it)"
done

# ---- the packages -----------------------------------------------------------------------
debs=${BOXCERT_DEBS_DIR:-}
if [ -z "$debs" ]; then
  debs=$T/debs
  t0=$SECONDS
  ok "cpack -G DEB" cpack -G DEB -B "$debs" --config "$build/CPackConfig.cmake"
  echo "# cpack: $((SECONDS - t0)) s"
fi
VD=$debs/boxcert-verify_${version}_amd64.deb
CD=$debs/boxcert_${version}_amd64.deb
ok "boxcert-verify_${version}_amd64.deb" test -f "$VD"
ok "boxcert_${version}_amd64.deb" test -f "$CD"
t0=$SECONDS
lintian --no-cfg --tag-display-limit 0 "$VD" "$CD" >"$T/lintian" 2>&1
echo "# lintian: $((SECONDS - t0)) s; $(grep -c '^W:' "$T/lintian") warnings"
sed 's/^/#   /' "$T/lintian"
unlike "$T/lintian" '^E:' "lintian: no error"
dpkg-deb -c "$VD" | awk '{print $6}' >"$T/verify.files"
dpkg-deb -c "$CD" | awk '{print $6}' >"$T/collect.files"
for f in usr/bin/boxcert-verify usr/share/man/man1/boxcert-verify.1.gz \
  usr/share/man/man1/boxcert-show.1.gz usr/share/man/man5/boxcert-policy.5.gz \
  usr/share/man/man5/boxcert-certificate.5.gz usr/share/bash-completion/completions/boxcert-verify \
  usr/share/zsh/vendor-completions/_boxcert usr/share/doc/boxcert-verify/copyright \
  usr/share/doc/boxcert-verify/changelog.gz usr/share/doc/boxcert-verify/policy.md \
  usr/share/doc/boxcert-verify/examples/policies/demo.yaml; do
  like "$T/verify.files" "^\./$f$" "boxcert-verify holds /$f"
done
for f in usr/bin/boxcert usr/share/man/man1/boxcert.1.gz usr/share/man/man1/boxcert-collect.1.gz \
  usr/share/man/man1/boxcert-audit.1.gz usr/share/bash-completion/completions/boxcert \
  usr/share/doc/boxcert/copyright usr/share/doc/boxcert/docs/collector.md \
  usr/share/doc/boxcert/examples/policies/demo.yaml; do
  like "$T/collect.files" "^\./$f$" "boxcert holds /$f"
done
unlike "$T/collect.files" '^\./usr/bin/boxcert-verify$' "boxcert leaves boxcert-verify to its package"
dpkg-deb -f "$VD" Depends >"$T/vdeps"
dpkg-deb -f "$CD" Depends >"$T/cdeps"
echo "# boxcert-verify Depends: $(cat "$T/vdeps")"
echo "# boxcert Depends: $(cat "$T/cdeps")"
like "$T/vdeps" 'libssl3' "boxcert-verify depends on libssl3 (shlibdeps)"
like "$T/vdeps" 'libjansson4' "... libjansson4"
like "$T/vdeps" 'libyaml-0-2' "... libyaml-0-2"
unlike "$T/vdeps" 'libcurl|libgit2|libseccomp' "... and on nothing of the collector's"
like "$T/cdeps" "boxcert-verify \(= $version\)" "boxcert depends on boxcert-verify of its version"
like "$T/cdeps" 'libcurl4' "... and libcurl4"

# ---- a clean Debian root runs the README ------------------------------------------------
need_engine
root=$T/root
mounted=()
teardown() {
  local m
  for ((m = ${#mounted[@]} - 1; m >= 0; m--)); do umount "${mounted[m]}" 2>/dev/null || umount -l "${mounted[m]}"; done
  mounted=()
  "$DOCKER" rm -f tutorial-good tutorial-weak >/dev/null 2>&1
  "$DOCKER" network rm tutorial-net >/dev/null 2>&1
  if grep -q " $root/" /proc/mounts; then
    echo "# something is still mounted under $root: not removed"
  else
    rm -rf --one-file-system "$root"
  fi
}
trap teardown EXIT
"$DOCKER" rm -f tutorial-good tutorial-weak >/dev/null 2>&1
"$DOCKER" network rm tutorial-net >/dev/null 2>&1
mkdir -p "$cache/archives"
t0=$SECONDS
ok "mmdebstrap: a clean bookworm root" mmdebstrap --variant=apt --include=man-db \
  --skip=essential/unlink --skip=cleanup/apt/lists \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
  --setup-hook="sync-in $cache/archives /var/cache/apt/archives/" \
  --customize-hook="sync-out /var/cache/apt/archives $cache/archives" \
  bookworm "$root"
echo "# mmdebstrap: $((SECONDS - t0)) s"
ok "no boxcert in it yet" test ! -e "$root/usr/bin/boxcert-verify"
mkdir -p "$root/root/tutorial"
cp "$VD" "$CD" "$root/root/tutorial/"
python3 "$BOXCERT_SOURCE_DIR/tests/lib/readme.py" "$BOXCERT_SOURCE_DIR/README.md" >"$root/root/tutorial.sh"
install -m 0755 "$(command -v "$DOCKER")" "$root/usr/local/bin/docker"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$cache"/archives/*.deb "$root/var/cache/apt/archives/" 2>/dev/null
sock=${DOCKER_HOST:-unix:///var/run/docker.sock}
sock=${sock#unix://}
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys")
mount --bind /sys/fs/cgroup "$root/sys/fs/cgroup" && mounted+=("$root/sys/fs/cgroup")
mount --bind /dev "$root/dev" && mounted+=("$root/dev")
mkdir -p "$root/var/run" && touch "$root/run/docker.sock"
mount --bind "$sock" "$root/run/docker.sock" && mounted+=("$root/run/docker.sock")
# The collector finds the engine's own bind mount of a session's network namespace by its
# SandboxKey (/var/run/docker/netns/ID) resolved to a path that exists: the engine's
# folder as this host has it.
mkdir -p "$root/run/docker/netns"
mount --bind /run/docker/netns "$root/run/docker/netns" && mounted+=("$root/run/docker/netns")
t0=$SECONDS
# The tutorial runs with the clean root as the root of a mount namespace of its own
# (pivot_root, not chroot): the collector places this host's objects through its own
# mountinfo, which a chroot does not show (docs/collector.md, "Host objects"). The old root
# stays under /.oldroot (the clean root has no umount).
unshare --mount --propagation private -- /bin/sh -c '
  mount --rbind "$1" "$1" && cd "$1" && mkdir -p .oldroot && pivot_root . .oldroot &&
    cd / &&
    exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      HOME=/root TERM=dumb DEBIAN_FRONTEND=noninteractive TUTORIAL_DIR=/root/tutorial \
      bash /root/tutorial.sh' sh "$root" >"$T/tutorial.log" 2>&1
rc=$?
echo "# the README's tutorial: $((SECONDS - t0)) s"
sed 's/^/#   /' "$T/tutorial.log" | tail -n 40
is "$rc" 0 "the README's every example runs in the clean root"
like "$T/tutorial.log" '^README: every example ran$' "... to the end"
cp -n "$root"/var/cache/apt/archives/*.deb "$cache/archives/" 2>/dev/null
ok "installed: boxcert-verify" chroot "$root" dpkg -s boxcert-verify
ok "installed: boxcert" chroot "$root" dpkg -s boxcert
for p in boxcert boxcert-verify boxcert-collect boxcert-audit 5\ boxcert-policy 5\ boxcert-certificate; do
  # shellcheck disable=SC2086
  chroot "$root" env LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings $p >"$T/page" 2>"$T/warn"
  is "$(cat "$T/warn")" "" "man --warnings $p in the root: silent"
  like "$T/page" '^NAME' "man $p shows the page"
done
ok "bash completion installed where bash-completion looks" \
  test -f "$root/usr/share/bash-completion/completions/boxcert-verify"
teardown
trap - EXIT
done_testing
