#!/usr/bin/env bash
# Smoke test of the Debian package (not part of the default test run): builds pai with
# -DCMAKE_INSTALL_PREFIX=/usr, packs it with `cpack -G DEB`, makes a fresh Debian 12 root with
# debootstrap (minbase), installs the package there with apt (which fetches its dependencies),
# and in that root compiles and runs examples/local-demo.yaml, and checks the man pages and
# completions are in place.
#
#   bash scripts/deb_smoke.sh [WORK_DIR]      (as root; default WORK_DIR: a new /tmp folder)
#   PAI_DEB=path/pai_X_amd64.deb bash scripts/deb_smoke.sh [WORK_DIR]   test that package
#
# Needs the Debian archive (and installs debootstrap from it when missing): debootstrap
# downloads the base system, apt the package's dependencies, from the first URIs of
# /etc/apt/sources.list.d/debian.sources (or $PAI_DEBIAN_MIRROR). There is no offline
# fallback: a root made from this machine's own files would already hold every library the
# package needs and prove nothing.
# Exit status: 0 passed; 1 failed; 2 usage or not root.
set -euo pipefail

root_dir=$(cd "$(dirname "$0")/.." && pwd)
[[ $(id -u) -eq 0 ]] || { echo "deb_smoke: run as root (debootstrap, chroot)" >&2; exit 2; }
(($# <= 1)) || { echo "usage: deb_smoke.sh [WORK_DIR]" >&2; exit 2; }
work=${1:-$(mktemp -d /tmp/pai-deb-smoke-XXXXXX)}
build=$work/build
chroot_dir=$work/root
mkdir -p "$work"

say() { printf 'deb_smoke: %s\n' "$*" >&2; }

mirror=${PAI_DEBIAN_MIRROR:-}
if [[ -z $mirror ]]; then
  mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null |
    head -n 1)
fi
mirror=${mirror:-http://deb.debian.org/debian}

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT

command -v debootstrap >/dev/null || apt-get install -y -qq --no-install-recommends debootstrap

if [[ -n ${PAI_DEB:-} ]]; then
  deb=$(realpath "$PAI_DEB")
else
  say "building into $build (prefix /usr)"
  cmake -S "$root_dir" -B "$build" -G Ninja -DCMAKE_INSTALL_PREFIX=/usr -DPAI_TESTS=OFF \
    -DPAI_BENCH=OFF >/dev/null
  ninja -C "$build" -j"${JOBS:-2}" >/dev/null
  (cd "$build" && cpack -G DEB >/dev/null)
  deb=$(ls "$build"/pai_*.deb)
fi
say "package: $deb"
dpkg-deb --contents "$deb" | awk '{print $6}' >"$work/contents"
# The prefix the package installs into: /usr, or what the build was configured with.
prefix=$(sed -n 's|^\.\(.*\)/bin/pai-compile$|\1|p' "$work/contents")
[[ -n $prefix ]] || { say "FAILED: no bin/pai-compile in the package"; exit 1; }
for file in bin/pai-launch share/pai/templates/ share/pai/schemas/job.schema.json \
  lib/pai/python/pai/ share/bash-completion/completions/pai-launch \
  share/zsh/site-functions/_pai-launch share/man/man1/pai-compile.1.gz \
  share/man/man1/pai-launch.1.gz share/doc/pai/copyright share/doc/pai/changelog.gz; do
  grep -q -- "^\.$prefix/$file" "$work/contents" ||
    { say "FAILED: $prefix/$file is not in the package"; exit 1; }
done

if [[ ! -x $chroot_dir/usr/bin/apt-get ]]; then
  say "debootstrap bookworm from $mirror into $chroot_dir"
  debootstrap --variant=minbase bookworm "$chroot_dir" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { say "FAILED: debootstrap (see $work/debootstrap.log)"; exit 1; }
fi
for fs in proc dev sys; do
  mount --bind "/$fs" "$chroot_dir/$fs"
  mounted+=("$chroot_dir/$fs")
done
cp "$deb" "$chroot_dir/tmp/pai.deb"
cp "$root_dir/examples/local-demo.yaml" "$chroot_dir/tmp/local-demo.yaml"
chroot "$chroot_dir" apt-get install -y -qq /tmp/pai.deb >"$work/apt.log" 2>&1 ||
  { say "FAILED: apt-get install pai.deb in the fresh root (see $work/apt.log)"; exit 1; }
say "installed in the fresh root; compiling and running examples/local-demo.yaml there"
chroot "$chroot_dir" /usr/bin/env PATH="$prefix/bin:/usr/bin:/bin" /bin/sh -ec '
  rm -rf /tmp/out
  pai-compile /tmp/local-demo.yaml -o /tmp/out
  pai-launch run --plan /tmp/out/plan.json --node localhost
  test -s "$1/share/man/man1/pai-launch.1.gz"
  test -s "$1/share/bash-completion/completions/pai-launch"
' sh "$prefix" 2>&1 | tee "$work/run.log"
grep -q 'hello from rank 1 of 2' "$work/run.log" ||
  { say "FAILED: the example's ranks did not print"; exit 1; }
say "passed: the package installs into a fresh Debian 12 root and runs an example"
