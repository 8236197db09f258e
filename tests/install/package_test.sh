#!/usr/bin/env bash
# The Debian package of a built tree, as Debian's tools see it:
#
#   package_test.sh BUILD_DIR
#
#   1. `cpack -G DEB` packs it (installing into /usr, as a package for Debian does);
#   2. it holds /usr/share/doc/pai/copyright, a machine-readable (DEP-5) copyright file, the
#      changelog as changelog.gz in Debian's format (dpkg-parsechangelog reads its version),
#      and the man pages gzipped;
#   3. lintian reports no error about it (its warnings are printed, not failed).
# Exit status: 0 passed; 1 failed; 2 usage; 77 skipped (no lintian: scripts/deps.sh installs it).
set -euo pipefail

(($# == 1)) || { echo "usage: package_test.sh BUILD_DIR" >&2; exit 2; }
build=$(realpath "$1")
say() { printf 'package_test: %s\n' "$*" >&2; }
fail() {
  say "FAILED: $*"
  exit 1
}
if ! command -v lintian >/dev/null; then
  say "skipped: lintian is not installed (scripts/deps.sh installs it)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pai-package-test-XXXXXX")
trap 'rm -rf -- "$work"' EXIT

# --- 1. The package, installing into /usr (the build's own prefix may be /usr/local).
(cd "$build" && cpack -G DEB -B "$work" -D CPACK_PACKAGING_INSTALL_PREFIX=/usr) \
  >"$work/cpack.log" 2>&1 || fail "cpack failed: $(cat "$work/cpack.log")"
debs=("$work"/pai_*.deb)
[[ -f ${debs[0]} ]] || fail "cpack made no pai_*.deb: $(cat "$work/cpack.log")"
deb=${debs[0]}
say "1. cpack made $(basename "$deb")"

# --- 2. Copyright, changelog and man pages as Debian wants them.
dpkg-deb -x "$deb" "$work/root"
doc=$work/root/usr/share/doc/pai
[[ -f $doc/copyright ]] || fail "no /usr/share/doc/pai/copyright"
head -n 1 "$doc/copyright" |
  grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
  fail "the copyright file is not machine-readable (DEP-5): $(head -n 1 "$doc/copyright")"
[[ -f $doc/changelog.gz ]] || fail "no /usr/share/doc/pai/changelog.gz"
version=$(dpkg-deb -f "$deb" Version)
zcat "$doc/changelog.gz" >"$work/changelog"
parsed=$(dpkg-parsechangelog -l "$work/changelog" -S Version) ||
  fail "dpkg-parsechangelog cannot read the changelog"
[[ $parsed == "$version" ]] || fail "the changelog is of version $parsed, the package $version"
for page in pai-compile pai-launch; do
  [[ -f $work/root/usr/share/man/man1/$page.1.gz ]] || fail "no gzipped man page $page.1.gz"
  [[ ! -e $work/root/usr/share/man/man1/$page.1 ]] || fail "$page.1 is not gzipped"
done
say "2. copyright (DEP-5), changelog.gz of version $version, gzipped man pages"

# --- 3. lintian: no error.
lintian --tag-display-limit 0 "$deb" >"$work/lintian.log" 2>&1 || true
cat "$work/lintian.log" >&2
if grep -q '^E: ' "$work/lintian.log"; then
  fail "lintian reports errors about $(basename "$deb")"
fi
say "3. lintian reports no error ($(grep -c '^W: ' "$work/lintian.log" || true) warnings)"
