#!/usr/bin/env bash
# Installs what building and testing pai needs on Debian 12 (run as root). Idempotent:
# packages already present are not reinstalled. `deps.sh --demo`: only what building the two
# programs and running the demo needs (scripts/demo.sh), without the test suite's tools.
set -euo pipefail

# Building pai-compile and pai-launch; lld links about 4x faster than GNU ld.
build_packages=(
  build-essential cmake ninja-build pkg-config
  libyaml-cpp-dev libjsonnet-dev libcli11-dev nlohmann-json3-dev
  libboost1.81-dev libboost-filesystem1.81-dev libssl-dev lld procps
  # pai-compile's allocator: Jsonnet evaluates about 1.6x faster on it (docs/development.md).
  libjemalloc-dev
)
packages=(
  "${build_packages[@]}" jsonnet catch2
  python3 python3-jsonschema python3-yaml dash iproute2 clang
  # Rendered Kubernetes manifests are checked against core/v1 with the client's models.
  python3-kubernetes
  # eu-stack: the native stacks of hang forensics (gdb is the fallback).
  elfutils
  # The Python SDK's tests: a real gloo DDP job, and `pip install sdk/python` into a venv.
  python3-torch python3-venv python3-pip
  openmpi-bin libopenmpi-dev
  slurm-wlm munge
  # `pai-launch status --watch` is tested on a real terminal.
  tmux
  # The job report (`pai-launch report`) is loaded and screenshotted in headless Chromium.
  chromium
  # The install test renders the man pages (groff, man) and checks the zsh completion.
  groff-base man-db zsh
  # The metrics endpoint is checked with promtool and scraped by a real Prometheus server.
  prometheus
  # Coordinator high availability is tested against a real 3-member etcd cluster on loopback.
  etcd-server
  # The Debian package is checked with lintian (tests/install/package_test.sh).
  lintian
)

if [[ ${1:-} == --demo ]]; then packages=("${build_packages[@]}"); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "deps: missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
    exit 2
  fi
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# python3-xgboost, for the xgboost preset's test (tests/launcher/multi_node/xgboost_job_test.py),
# cannot be installed beside libboost1.81-dev: its python3-scipy depends on python3-pythran,
# which depends on libboost-dev, Boost 1.74, which conflicts with 1.81. The test needs only the
# packages' files: they are unpacked, without dpkg, into $PAI_TEST_DEPS/xgboost.
xgboost_dir=${PAI_TEST_DEPS:-/opt/pai-test-deps}/xgboost
if [[ ${1:-} != --demo ]] && ! /usr/bin/python3 -c 'import xgboost' 2>/dev/null &&
  [[ ! -d $xgboost_dir/usr/lib/python3/dist-packages/xgboost ]]; then
  echo "deps: unpacking python3-xgboost and python3-scipy into $xgboost_dir"
  debs=$(mktemp -d)
  chmod a+rwx "$debs"  # apt-get downloads as its _apt user
  mkdir -p "$xgboost_dir"
  (cd "$debs" && apt-get download -qq python3-xgboost libxgboost0 libdmlc0 python3-scipy)
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$xgboost_dir"; done
  rm -rf "$debs"
fi
